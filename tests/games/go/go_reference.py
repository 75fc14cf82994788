"""An independent reference of the Go rules for the tests: plain Python on (x, y) coordinates,
no compiled code, whole-history sets for superko. Slow and obvious on purpose.

Board: dict-free list of lists ``board[y][x]``, 0 empty, 1 Black, 2 White; y = row from the top.
"""

from __future__ import annotations


class RefGo:
    def __init__(self, size, ko="simple", suicide="off"):
        self.n = size
        self.ko = ko
        self.suicide = suicide
        self.board = [[0] * size for _ in range(size)]
        self.to_play = 1  # 1 Black, 2 White
        self.ko_point = None
        self.caps = {1: 0, 2: 0}
        self.seen = {self._snapshot(self.board, 1)}

    def _nbrs(self, x, y):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if 0 <= x + dx < self.n and 0 <= y + dy < self.n:
                yield x + dx, y + dy

    def _chain(self, board, x, y):
        color = board[y][x]
        chain, libs, todo = {(x, y)}, set(), [(x, y)]
        while todo:
            cx, cy = todo.pop()
            for nx, ny in self._nbrs(cx, cy):
                v = board[ny][nx]
                if v == 0:
                    libs.add((nx, ny))
                elif v == color and (nx, ny) not in chain:
                    chain.add((nx, ny))
                    todo.append((nx, ny))
        return chain, libs

    def _snapshot(self, board, to_play):
        flat = tuple(v for row in board for v in row)
        return (flat, to_play) if self.ko == "situational" else flat

    def result(self, x, y):
        """(board after the move, captured count, suicided count) or None if not legal by
        occupancy / suicide / simple ko (superko not checked here)."""
        if self.board[y][x] != 0 or (self.ko == "simple" and self.ko_point == (x, y)):
            return None
        me, opp = self.to_play, 3 - self.to_play
        board = [row[:] for row in self.board]
        board[y][x] = me
        captured = 0
        for nx, ny in self._nbrs(x, y):
            if board[ny][nx] == opp:
                chain, libs = self._chain(board, nx, ny)
                if not libs:
                    for cx, cy in chain:
                        board[cy][cx] = 0
                    captured += len(chain)
        chain, libs = self._chain(board, x, y)
        suicided = 0
        if not libs:
            if self.suicide == "off" or len(chain) == 1:
                return None
            for cx, cy in chain:
                board[cy][cx] = 0
            suicided = len(chain)
        return board, captured, suicided

    def legal(self):
        """Legal points (x, y) for the side to move, superko included."""
        out = []
        for y in range(self.n):
            for x in range(self.n):
                r = self.result(x, y)
                if r is None:
                    continue
                if self.ko != "simple" and self._snapshot(r[0], 3 - self.to_play) in self.seen:
                    continue
                out.append((x, y))
        return out

    def play(self, x, y):
        board, captured, suicided = self.result(x, y)
        me = self.to_play
        self.caps[me] += captured
        self.caps[3 - me] += suicided
        self.ko_point = None
        if captured == 1:
            chain, libs = self._chain(board, x, y)
            if len(chain) == 1 and len(libs) == 1:
                self.ko_point = next(iter(libs))
        self.board = board
        self.to_play = 3 - me
        self.seen.add(self._snapshot(board, self.to_play))

    def pass_move(self):
        self.ko_point = None
        self.to_play = 3 - self.to_play
        self.seen.add(self._snapshot(self.board, self.to_play))

    def area(self):
        """(Black area, White area): stones + empty regions reaching one colour only."""
        score = {1: 0, 2: 0}
        seen = set()
        for y in range(self.n):
            for x in range(self.n):
                v = self.board[y][x]
                if v:
                    score[v] += 1
                elif (x, y) not in seen:
                    region, reach, todo = {(x, y)}, set(), [(x, y)]
                    while todo:
                        cx, cy = todo.pop()
                        for nx, ny in self._nbrs(cx, cy):
                            w = self.board[ny][nx]
                            if w:
                                reach.add(w)
                            elif (nx, ny) not in region:
                                region.add((nx, ny))
                                todo.append((nx, ny))
                    seen |= region
                    if len(reach) == 1:
                        score[reach.pop()] += len(region)
        return score[1], score[2]
