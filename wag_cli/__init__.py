"""WAG warehouse command-line tool (`wag`)."""

__version__ = "0.1.0"
