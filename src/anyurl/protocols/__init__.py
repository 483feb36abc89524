"""Sans-I/O protocol cores: bytes in, events out; no sockets, no anyio, no handlers."""
