"""The base of every contract model: immutable, and no key the schema does not name."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A frozen pydantic model that refuses unknown keys (``extra="forbid"``).

    Artifacts, model outputs, stage contexts and configuration all derive from it, so a typo in a
    key is an error, never a silently ignored field.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
