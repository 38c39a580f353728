"""Command-line subcommands, one module per concern; each exposes ``register(subparsers)``."""
