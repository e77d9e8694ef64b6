"""PII detection and scrubbing with presidio-analyzer."""
