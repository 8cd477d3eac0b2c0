"""Local stand-ins for external services: HTTP servers on 127.0.0.1 that play provider APIs."""
