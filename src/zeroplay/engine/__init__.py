"""What plays: protocol-manager players (``gtp:COMMAND``), engines and their evaluators."""
