"""The read-only world database resource (ARCHITECTURE 10): SQLite (embedded demo) or MariaDB/MySQL.

* :mod:`.database`: :class:`WorldDatabase`, the only two operations (contains search, fetch by
  identity) and their recorded execution;
* :mod:`.connection`: the engine made on first use, driver errors classified, and the allowlisted
  tables read once into the snapshot binding;
* :mod:`.schema`: reflection of the allowlisted tables and the catalogs bound to them;
* :mod:`.query`: the literal, parameterized contains-search statement and row mapping;
* :mod:`.sqlite` / :mod:`.mysql`: read-only engines per backend;
* :mod:`.errors`: backend errors classified as outages or read-only violations.
"""

from resources.world_db.database import WorldDatabase

__all__ = ["WorldDatabase"]
