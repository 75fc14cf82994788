"""Helpers for the GTP tests: an in-process GtpSession and one command's reply."""

from __future__ import annotations

import threading

from zeroplay.play.gtp import GtpSession


def gtp_session(playouts: int = 30, **options):
    """A GtpSession writing into a list; returns (session, out). Its ``interrupted`` event is set,
    so a command is always "waiting" and analyses end after their first round."""
    out: list[str] = []
    stop = threading.Event()
    stop.set()
    return GtpSession(out.append, interrupted=stop, playouts=playouts, **options), out


def ask(session, out, line: str) -> str:
    """The whole reply of ``session`` to one command line."""
    out.clear()
    session.handle(line)
    return "".join(out)


def stop_after_infos(session, count: int = 1, limit_s: float = 60.0) -> None:
    """Make the next analysis of ``session`` stop once it has written ``count`` ``info`` lines
    (or after ``limit_s``): a stop on a timer raced the start-up of a loaded machine, where the
    first playout can come after it and the reply then holds no line."""
    stop = threading.Event()
    session.interrupted = stop
    write = session.write
    seen = []

    def counting(text: str) -> None:
        write(text)
        if text.startswith("info "):
            seen.append(text)
            if len(seen) >= count:
                stop.set()

    session.write = counting
    timer = threading.Timer(limit_s, stop.set)
    timer.daemon = True
    timer.start()


def own_net_session(tmp_path, seed: int, playouts: int = 16):
    """A 5x5 GTP session with a random -own net (ownership and score heads), after ``play b c3``,
    its next analysis stopping after the first info line; returns (session, out)."""
    from zeroplay.games import make
    from zeroplay.nn import build_model, save_checkpoint

    game = make("go", size=5, komi=7.0)
    path = tmp_path / "go-own.safetensors"
    save_checkpoint(path, build_model("b1c8-own", game, "go", seed=seed), game=game, features="go", step=0)
    session, out = gtp_session(playouts=playouts, size=5, komi=7.0, model=str(path))
    assert ask(session, out, "play b c3").startswith("=")
    stop_after_infos(session)
    return session, out
