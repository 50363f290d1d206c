"""scripts/services.sh, which scripts/test.sh runs around the tests: on ports where
nothing listens it starts a throwaway PostgreSQL and Redis that the tests can use, and
stops and removes them after; a port held by something else is one line of error.

Run here on spare ports (the machine's own servers on 5432 and 6379 are left alone), with
the distribution's PostgreSQL and Redis that scripts/test.sh installs where they are
missing."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[1] / "scripts" / "services.sh"

pytestmark = pytest.mark.timeout(300)  # two servers started and stopped: a loaded box is slow


def spare_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def services(command: str, folder: Path, pg_port: int,
             redis_port: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BODYGRAPH_TEST_PG_PORT": str(pg_port),
           "BODYGRAPH_TEST_REDIS_PORT": str(redis_port), "PYTHON": sys.executable}
    return subprocess.run(["bash", str(SCRIPT), command, str(folder)], capture_output=True,
                          text=True, env=env, timeout=240, check=False)


def answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=10).close()
    except OSError:
        return False
    return True


def test_throwaway_servers_answer_and_are_gone_after() -> None:
    import psycopg
    import redis

    pg_port, redis_port = spare_port(), spare_port()
    # As root the server runs as user postgres, which must reach its folder: not under
    # pytest's tmp_path, whose folders only their owner may enter.
    folder = Path(tempfile.mkdtemp(prefix="bodygraph-services-"))
    started = services("start", folder, pg_port, redis_port)
    try:
        assert started.returncode == 0, started.stderr
        assert "throwaway PostgreSQL" in started.stdout
        assert "throwaway Redis" in started.stdout
        url = f"postgresql://postgres@127.0.0.1:{pg_port}/test"
        with psycopg.connect(url) as conn:
            row = conn.execute("select current_database(), current_user").fetchone()
        assert row == ("test", "postgres")
        client = redis.Redis(port=redis_port)
        try:
            assert client.set("services-test", "1") and client.get("services-test") == b"1"
        finally:
            client.close()
        pids = [int((folder / "redis" / "redis.pid").read_text()),
                int((folder / "postgres" / "data" / "postmaster.pid").read_text().split()[0])]
    finally:
        stopped = services("stop", folder, pg_port, redis_port)
    assert stopped.returncode == 0, stopped.stderr
    assert not folder.exists()
    assert not answers(pg_port) and not answers(redis_port)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def answer_not_postgres(other: socket.socket) -> None:
    """Each connection gets an HTTP error and is closed, as a web server would."""
    while True:
        try:
            conn, _ = other.accept()
        except OSError:  # the listening socket was shut down: the test is over
            return
        with conn:
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def test_a_port_held_by_another_server_is_one_line_of_error(tmp_path: Path) -> None:
    with socket.socket() as other:  # answers, but is no PostgreSQL
        other.bind(("127.0.0.1", 0))
        other.listen()
        answering = threading.Thread(target=answer_not_postgres, args=(other,), daemon=True)
        answering.start()
        try:
            done = services("start", tmp_path, other.getsockname()[1], spare_port())
        finally:
            other.shutdown(socket.SHUT_RDWR)  # wakes the accept() of the thread
            answering.join(timeout=30)
    assert done.returncode == 1
    assert done.stderr.startswith("error: the PostgreSQL on 127.0.0.1:")
    assert len(done.stderr.splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing started


def test_a_usage_mistake_exits_2() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "begin"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert done.stderr == "usage: services.sh packages | start DIR | stop DIR\n"


def run_test_command(tmp_path: Path, java: str | None = None) -> subprocess.CompletedProcess[str]:
    """scripts/test.sh on a PATH of a few basic commands (no wrk, no apt-get), with a
    ``java`` there that prints ``java -version``'s first line ``java`` if given."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "dirname", "grep", "id", "find", "sort", "tail"):
        found = shutil.which(name)
        assert found is not None, name
        (tools / name).symlink_to(found)
    if java is not None:
        fake = tools / "java"
        fake.write_text(f"#!{tools / 'bash'}\necho '{java}' >&2\n"
                        "echo 'OpenJDK Runtime Environment' >&2\n")
        fake.chmod(0o755)
    env = {"PATH": str(tools), "HOME": str(tmp_path)}
    return subprocess.run([str(tools / "bash"), str(SCRIPT.parent / "test.sh")],
                          capture_output=True, text=True, env=env, timeout=60, check=False)


def test_the_test_command_names_what_it_cannot_install_and_stops(tmp_path: Path) -> None:
    """Without apt-get (here: a PATH of a few basic commands, without wrk, java or
    apt-get), scripts/test.sh says in one line what to install, and runs nothing."""
    done = run_test_command(tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith("error: the tests need ")
    assert "apt-get install " in done.stderr
    assert "wrk" in done.stderr and "default-jre-headless" in done.stderr


@pytest.mark.parametrize(("first_line", "major"), [
    ('openjdk version "11.0.20" 2023-07-18', 11),
    ('java version "1.8.0_392"', 8),
    ('openjdk version "16-ea" 2021-03-16', 16),
])
def test_a_java_older_than_17_is_named_with_the_package_that_replaces_it(
    tmp_path: Path, first_line: str, major: int,
) -> None:
    """A ``java`` that runs but is older than the Spark test needs counts as missing."""
    done = run_test_command(tmp_path, first_line)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "openjdk-17-jre-headless" in done.stderr
    assert f"this is Java {major})" in done.stderr
    assert "default-jre-headless" not in done.stderr


@pytest.mark.parametrize("first_line", ['openjdk version "17.0.9" 2023-10-17',
                                        'openjdk version "21-ea" 2023-09-19',
                                        'java version "25" 2025-09-16 LTS'])
def test_a_java_of_17_or_newer_is_not_missing(tmp_path: Path, first_line: str) -> None:
    done = run_test_command(tmp_path, first_line)
    assert done.returncode == 1  # wrk and the others are still missing
    assert done.stderr.startswith("error: the tests need ") and "wrk" in done.stderr
    assert "jre" not in done.stderr and "Java" not in done.stderr
