"""What plays: engines over games (the shogi alpha-beta engine), protocol-manager players
(``usi:COMMAND``); see docs/ARCHITECTURE.md. Nothing heavy is imported here."""
