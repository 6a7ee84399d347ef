"""The Click commands: a thin layer that parses options, calls the library and prints."""
