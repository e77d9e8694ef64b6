"""Quality filter rules: plain functions over one text, free of I/O."""
