"""``zeroplay bench tt`` returns the JSON figures issue 3 asks for (tiny sizes here)."""

from __future__ import annotations

from zeroplay.bench import tt


def test_bench_keys_and_sanity():
    result = tt.measure(capacity_log2=12, ab_mib=0.25, ab_stores=20_000, repeats=1)
    assert set(result) == {"node_table", "ab_table"}
    assert set(result["node_table"]) == {"capacity", "lookup_per_s_50", "lookup_per_s_90", "insert_per_s_50"}
    assert set(result["ab_table"]) == {"size_mib", "probe_per_s", "store_per_s", "bytes_per_entry"}
    assert result["node_table"]["capacity"] == 4096
    assert result["ab_table"]["bytes_per_entry"] == 16
    assert all(v > 0 for v in result["node_table"].values())
    assert all(v > 0 for v in result["ab_table"].values())
