"""The answer path behind `ragchain ask`: its stages (workflow.py lists them in order) and the
assembly from an index (assemble.py). The model runtime it reads with lives in llm/."""
