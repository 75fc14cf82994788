"""Game records: PSQ and SGF round trips, coordinates, results, readers' refusals."""

import pytest

from zeroplay.games import make
from zeroplay.games.records import GameRecord, load_record, read_psq, read_sgf, record_of_game, save_record, write_psq, write_sgf

GAME = make("gomoku", size=7, n_in_row=5)
BLACK_WINS = [0, 14, 1, 15, 2, 16, 3, 17, 4]


def test_psq_counts_from_one_with_column_first():
    record = GameRecord(7, 7, [0, 8, 13], "zeroplay-a", "zeroplay-b", times_ms=[5, 10, 15])
    text = write_psq(record)
    lines = text.splitlines()
    assert lines[0] == "Piskvorky 7x7, 11:11, 0"
    assert lines[1:4] == ["1,1,5", "2,2,10", "7,2,15"]  # cell 13 = row 1, column 6
    assert lines[4:] == ["zeroplay-a", "zeroplay-b", "-1"]
    assert read_psq(text) == record


def test_psq_reader_accepts_moves_without_times_and_no_names():
    rec = read_psq("Piskvorky 15x15, 11:11, 0\n8,8\n9,8,100\n-1\n")
    assert rec.moves == [7 * 15 + 7, 7 * 15 + 8] and rec.times_ms == [0, 100]
    assert (rec.black, rec.white) == ("", "")
    with pytest.raises(ValueError, match="off the 15x15 board"):
        read_psq("Piskvorky 15x15, 11:11, 0\n0,8,0\n")
    with pytest.raises(ValueError, match="twice"):
        read_psq("Piskvorky 15x15, 11:11, 0\n8,8,0\n8,8,0\n")
    with pytest.raises(ValueError, match="Piskvorky"):
        read_psq("(;GM[4])")


def test_psq_reader_refuses_a_move_line_gone_wrong_instead_of_ending_the_game_there():
    # helper-68: "-3,-3,0" then "8,8,0" loaded as an empty game, the 8,8 and all after it dropped
    with pytest.raises(ValueError, match=r"line 2: move '-3,-3,0' is off the 15x15 board"):
        read_psq("Piskvorky 15x15, 11:11, 0\n-3,-3,0\n8,8,0\n")
    with pytest.raises(ValueError, match=r"line 3: '9 9' is not a move .* line 4 after it is one"):
        read_psq("Piskvorky 15x15, 11:11, 0\n8,8,0\n9 9\n10,10,0\n")
    # names and the end marker still end the moves, whatever follows them
    rec = read_psq("Piskvorky 15x15, 11:11, 0\n8,8,0\npbrain-a.exe\npbrain-b.exe\n-1\nresult=B+\n")
    assert rec.moves == [7 * 15 + 7] and (rec.black, rec.white) == ("pbrain-a.exe", "pbrain-b.exe")


@pytest.mark.parametrize("line, needle", [("foo", "'foo'"), ("", "an empty line"), ("Black", "'Black'")])
def test_psq_reader_refuses_a_stray_line_among_the_moves(line, needle):
    # "8,8,0 / foo / 9,9,0" loaded one move: the stray line was read as a name, the 9,9 dropped
    text = f"Piskvorky 15x15, 11:11, 0\n8,8,0\n{line}\n9,9,0\n-1\n"
    with pytest.raises(ValueError, match=f"PSQ line 3: {needle} is not a move .* line 4 after it is one"):
        read_psq(text)


@pytest.mark.parametrize("move", ["9,9,x", "9,9,", "9,x", "9,9,0,0"])
def test_psq_reader_calls_a_malformed_move_malformed_not_off_the_board(move):
    with pytest.raises(ValueError, match=f"PSQ line 3: move '{move}' is malformed") as e:
        read_psq(f"Piskvorky 15x15, 11:11, 0\n8,8,0\n{move}\n-1\n")
    assert "off the" not in str(e.value)


@pytest.mark.parametrize("line", ["9 9 0", "9;9;0", "9.5,9,0", "9 9", "9:9", "9\t9\t0"])
def test_psq_reader_refuses_a_bent_move_just_before_the_end_marker(line):
    # helper-75: "8,8,0 / 9 9 0 / -1" loaded one move, the bent line read as a player's name
    with pytest.raises(ValueError, match=r"PSQ line 3: .* is not a move .* before the end marker"):
        read_psq(f"Piskvorky 15x15, 11:11, 0\n8,8,0\n{line}\n-1\n")


def test_psq_names_with_numbers_still_end_the_moves():
    rec = read_psq("Piskvorky 15x15, 11:11, 0\n8,8,0\nYixin 2018\nembryo 21 v2\n-1\n3 1000\n")
    assert rec.moves == [7 * 15 + 7] and (rec.black, rec.white) == ("Yixin 2018", "embryo 21 v2")


def test_psq_trailer_lines_after_the_end_marker_are_not_moves():
    # Piskvork writes the engines, their paths and numbers after the moves; none is a move
    text = ("Piskvorky 20x20, 11:11, 0\n10,10,0\n11,11,1250\npbrain-a.zip\npbrain-b.zip\n-1\n"
            "C:\\piskvork\\pbrain-a.exe\n3,1000\n0\n")
    rec = read_psq(text)
    assert rec.moves == [9 * 20 + 9, 10 * 20 + 10] and (rec.black, rec.white) == ("pbrain-a.zip", "pbrain-b.zip")


def test_sgf_round_trip_with_result_and_escaped_comment():
    record = record_of_game(GAME, BLACK_WINS, black="net [step 10]", white="rollout:1000",
                            comment="self-play game 3 \\ a]b")
    assert record.result == "B+" and record.winner == 0
    text = write_sgf(record)
    assert text.startswith("(;FF[4]GM[4]") and "SZ[7]" in text and ";B[aa];W[ac]" in text
    assert read_sgf(text) == record
    assert read_sgf(text).replay(GAME).winner == 0


def test_sgf_non_square_board_and_draw():
    game = make("gomoku", width=7, height=5, n_in_row=5)
    record = record_of_game(game, [34, 0], winner=None)
    text = write_sgf(record)
    assert "SZ[7:5]" in text and "RE[0]" in text and ";B[ge]" in text  # cell 34: column 6 (g), row 4 (e)
    back = read_sgf(text)
    assert (back.width, back.height, back.moves, back.winner) == (7, 5, [34, 0], None)


def test_sgf_reader_takes_the_main_line():
    text = "(;GM[4]FF[4]SZ[15]PB[x] ;B[hh](;W[ih];B[ii])(;W[gg]))"
    assert read_sgf(text).moves == [7 * 15 + 7, 7 * 15 + 8, 8 * 15 + 8]
    with pytest.raises(ValueError, match="out of turn"):
        read_sgf("(;SZ[15];B[hh];B[ii])")
    with pytest.raises(ValueError, match="not on the 7x7 board"):
        read_sgf("(;SZ[7];B[hh])")
    with pytest.raises(ValueError, match="set-up"):
        read_sgf("(;SZ[7]AB[aa];W[bb])")
    with pytest.raises(ValueError, match="malformed"):
        read_sgf("(;SZ[7];B[aa]")


def test_resignation_and_unknown_result():
    assert record_of_game(GAME, BLACK_WINS[:4], winner=1, resigned=True).result == "W+R"
    assert record_of_game(GAME, BLACK_WINS[:4]).result == ""


@pytest.mark.parametrize("suffix", [".psq", ".sgf"])
def test_files_round_trip(tmp_path, suffix):
    record = record_of_game(GAME, BLACK_WINS, black="a", white="b")
    path = tmp_path / f"game-000001{suffix}"
    save_record(path, record)
    back = load_record(path)
    assert back.moves == record.moves and (back.black, back.white) == ("a", "b")
    assert back.replay(GAME).is_terminal
    with pytest.raises(ValueError, match=".psq or .sgf"):
        save_record(tmp_path / "game.txt", record)


def test_an_sgf_of_another_game_is_refused():
    """A Go record (GM[1]) loaded as a 19x19 Gomoku board without a word."""
    with pytest.raises(ValueError, match=r"SGF record of game GM\[1\], not Gomoku \(GM\[4\]\)"):
        read_sgf("(;FF[4]GM[1]SZ[19];B[aa])")
    assert read_sgf("(;FF[4]GM[4]SZ[15];B[hh])").moves == [7 * 15 + 7]
    assert read_sgf("(;FF[4]SZ[15];B[hh])").moves == [7 * 15 + 7]  # no GM: taken as Gomoku



@pytest.mark.parametrize("text, needle", [
    ("(;GM[4]SZ[-3];B[aa])", r"SZ\[-3\] is outside 1..26"),
    ("(;GM[4]SZ[1000];B[aa])", r"SZ\[1000\] is outside 1..26"),
    ("(;GM[4]SZ[];B[aa])", r"SZ\[\] is not a number"),
    ("(;GM[]SZ[15];B[aa])", r"GM\[\], not Gomoku"),
])
def test_an_sgf_board_size_or_game_that_cannot_be_is_refused(text, needle):
    with pytest.raises(ValueError, match=needle):
        read_sgf(text)
    assert read_sgf("(;GM[04]SZ[15];B[hh])").moves == [7 * 15 + 7]  # 04 is the number 4


@pytest.mark.parametrize("text", ["(" * 3000, "(;SZ[9]" + "(;B[aa]" * 5000 + ")" * 5001, "(;SZ[9]" + "(" * 100_000])
def test_a_deeply_nested_sgf_is_a_value_error_not_a_recursion_error(text):
    # issue 23: "(" * 3000 gave HTTP 500 on the web board (RecursionError in the parser)
    with pytest.raises(ValueError, match="not closed|out of turn|does not begin with a node"):
        read_sgf(text)


def test_a_deep_main_line_reads_to_its_end_and_variations_after_the_first_are_skipped():
    text = "(;SZ[9];B[aa](;W[bb](;B[cc])(;B[dd]))(;W[ee]))"
    assert read_sgf(text).moves == [0, 10, 20]
    deep = "(;SZ[19]" + "".join(f"(;{'BW'[i % 2]}[{chr(97 + i % 19)}{chr(97 + i // 19)}]" for i in range(300)) + ")" * 301
    assert len(read_sgf(deep).moves) == 300
    with pytest.raises(ValueError, match="after a variation"):
        read_sgf("(;SZ[9](;B[aa]);W[bb])")


def test_result_rule_and_per_node_properties_round_trip():
    """The web board's review (issue 23) stores analysis in SGF properties zeroplay does not
    interpret, and the result and rule in both formats: they must come back as written."""
    rec = GameRecord(9, 9, [40, 41, 42], "a", "b", "B+", rule="standard",
                     node_props=[{"ZW": "0.5"}, {}, {"ZW": "0.4", "C": "brackets ] and \\ kept"}, {}])
    back = read_sgf(write_sgf(rec))
    assert (back.result, back.rule, back.node_props) == ("B+", "standard", rec.node_props)
    psq = read_psq(write_psq(rec))
    assert (psq.result, psq.rule, psq.black, psq.white, psq.moves) == ("B+", "standard", "a", "b", [40, 41, 42])
    # a record without labels reads as before
    plain = read_psq("Piskvorky 9x9, 11:11, 0\n5,5,0\n-1\n")
    assert (plain.result, plain.rule, plain.node_props) == ("", "", [])
    with pytest.raises(ValueError, match="property name"):
        write_sgf(GameRecord(9, 9, [40], node_props=[{}, {"B": "x"}]))
    # FF[3] lower-case property names (no upper-case letter: no name) are dropped, so that what
    # was read can be written again
    odd = read_sgf("(;GM[4]SZ[9]xy[1]DT[2020];B[ee]ab[2]C[hi])")
    assert odd.node_props == [{"DT": "2020"}, {"C": "hi"}] and read_sgf(write_sgf(odd)).node_props == odd.node_props


@pytest.mark.parametrize("suffix", [".psq", ".sgf"])
def test_a_file_saved_with_a_utf8_byte_order_mark_loads(tmp_path, suffix):
    """Windows Notepad saves UTF-8 with a BOM: the SGF read as PSQ-less junk, the PSQ header broke."""
    record = record_of_game(GAME, BLACK_WINS, black="a", white="b")
    path = tmp_path / f"game{suffix}"
    save_record(path, record)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    back = load_record(path)
    assert back.moves == record.moves and (back.black, back.white) == ("a", "b")


@pytest.mark.parametrize("text, where", [
    ("(;GM[4]SZ[15]RU[renju2];B[hh])", "SGF RU"),
    ("Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\nresult=B+\nrule=renju2\n", "PSQ line 5"),
])
def test_an_unknown_rule_is_refused_naming_the_known_ones(text, where):
    # RU[renju2] loaded as a free-style game without a word
    with pytest.raises(ValueError, match=f"{where}: unknown rule 'renju2'; zeroplay knows freestyle, standard and renju"):
        (read_sgf if text.startswith("(") else read_psq)(text)


def test_a_known_rule_is_read_in_any_case():
    assert read_sgf("(;GM[4]SZ[15]RU[Renju];B[hh])").rule == "renju"
    assert read_sgf("(;GM[4]SZ[15];B[hh])").rule == ""
    assert read_psq("Piskvorky 15x15, 11:11, 0\n8,8,0\n-1\nrule=Standard\n").rule == "standard"


@pytest.mark.parametrize("lead", ["\n", "\n\n  \n", "\ufeff", "\ufeff\n"])
def test_psq_reader_skips_blank_lines_and_a_byte_order_mark_before_the_header(lead):
    # session 33: a file starting with an empty line was refused as "not a PSQ record"
    text = lead + "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9 9\n-1\n"
    with pytest.raises(ValueError, match=rf"PSQ line {lead.count(chr(10)) + 3}: move '9,9 9' is malformed"):
        read_psq(text)
    rec = read_psq(lead + "Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\n-1\n")
    assert rec.moves == [7 * 15 + 7, 8 * 15 + 8]
