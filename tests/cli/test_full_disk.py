"""A full disk stops writing, not reading: status, search and doctor still work on a data
directory with no free byte left, and doctor says the disk is full.

The disk is real: the data directory is copied onto a tmpfs mounted in a private mount
namespace, which is then filled to its last byte.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.core.index.test_store_faults import cli_in, namespace  # noqa: F401 - the fixture
from tests.helpers import footnotes


@pytest.mark.slow  # three CLI processes inside a mount namespace: ~20 s
def test_reading_commands_work_on_a_full_disk(
    namespace: list[str],  # noqa: F811 - the fixture imported above
    cli_data_dir: Path,
    tmp_path: Path,
) -> None:
    docs, out = tmp_path / "docs", tmp_path / "out"
    docs.mkdir()
    (docs / "kiln.md").write_text("# Kiln\n\nThe pottery kiln fires at 1240 degrees.\n")
    data = str(cli_data_dir)
    assert footnotes("--data-dir", data, "index", str(docs)).returncode == 0
    assert footnotes("--data-dir", data, "search", "kiln").returncode == 0  # as a person would
    (out / "stage").mkdir(parents=True)
    script = """
    py=$1 data=$2 out=$3
    cp -a "$data/." "$out/stage/" || exit 9
    mount -t tmpfs -o size=$(( $(du -sk "$out/stage" | cut -f1) + 64 ))k tmpfs "$data" || exit 9
    cp -a "$out/stage/." "$data/" || exit 9
    dd if=/dev/zero of="$data/filler" bs=4k 2>/dev/null  # every byte left
    df -k "$data" | tail -n 1 | awk '{print $4}' > "$out/free"
    for cmd in status search doctor; do
      if [ $cmd = search ]; then args="search kiln --json"; else args=$cmd; fi
      "$py" -m app --data-dir "$data" --ollama-host http://127.0.0.1:9 $args \
        > "$out/$cmd.out" 2> "$out/$cmd.err"
      echo $? > "$out/$cmd.rc"
    done
    """
    done = cli_in(namespace, script, data, str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "free").read_text().strip() == "0"

    def ran(cmd: str) -> tuple[int, str, str]:
        rc = int((out / f"{cmd}.rc").read_text())
        return rc, (out / f"{cmd}.out").read_text(), (out / f"{cmd}.err").read_text()

    rc, text, err = ran("status")
    assert rc == 0 and "1 indexed" in text, err
    rc, text, err = ran("search")
    assert rc == 0 and "kiln.md" in text and "disk I/O error" not in err, err
    rc, text, err = ran("doctor")  # Ollama is not there either: a problem, named
    assert "Traceback" not in err
    assert "the disk holding" in text and "is full" in text
    shutil.rmtree(out)
