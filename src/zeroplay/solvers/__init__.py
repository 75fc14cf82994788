"""Exact solvers (the shogi mate search; the threat and Connect Four solvers move here in the
redesign). Each proves or refutes and says which."""
