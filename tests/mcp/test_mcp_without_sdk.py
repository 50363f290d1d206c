"""``bodygraph-mcp`` where the ``mcp`` extra is not installed (its command is in every
install): one line saying what to install, status 1, not a traceback."""

from __future__ import annotations

import subprocess
import sys

#: A process where ``import mcp`` fails, running the command's entry point.
_WITHOUT_SDK = """
import sys
class NoSdk:
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] == "mcp":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, NoSdk())
from bodygraph_mcp.cli import main
sys.exit(main([]))
"""


def test_without_the_sdk_the_command_says_what_to_install() -> None:
    run = subprocess.run([sys.executable, "-c", _WITHOUT_SDK], capture_output=True,
                         text=True, stdin=subprocess.DEVNULL, timeout=50, check=False)
    assert run.returncode == 1, run.stderr
    assert run.stdout == ""
    assert run.stderr == ("bodygraph-mcp: error: the MCP server needs the mcp extra, "
                          "pip install 'bodygraph[mcp]' (No module named 'mcp')\n")
