"""Token file formats: Megatron .bin/.idx, nanoGPT, llm.c and datatrove exports."""
