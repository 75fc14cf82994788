"""File helpers at the bottom of the package, used by every room that writes files.

``atomic``: ``atomic_write``, ``atomic_write_bytes``, ``atomic_write_text`` (temp file in the
same folder, fsync, ``os.replace``, fsync of the folder): a crash leaves the old file or the new
one, never a mixture. ``resident``: ``current_rss``, the process's resident memory (read from
``/proc``). Imports nothing from zeroplay.
"""
