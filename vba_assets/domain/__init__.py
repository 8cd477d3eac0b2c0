"""Pure domain logic: stdlib and pydantic only. Nothing here touches disk, network or Dagster."""
