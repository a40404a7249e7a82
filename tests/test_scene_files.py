"""File-level failures of load_scene: each is one SceneError line naming the file."""

from __future__ import annotations

import os
import pathlib

import pytest
from scene_support import MINIMAL, assert_rejected, load_error, write

from wander3d import Scene, SceneError, load_scene
from wander3d.scene import loader


def test_missing_file(tmp_path):
    error = load_error(tmp_path / "nope.toml")
    assert error.problem == "no such file" and error.key is None


def test_missing_folder(tmp_path):
    error = load_error(tmp_path / "no" / "such" / "dir" / "x.toml")
    assert error.problem == "no such file"


def test_path_through_a_file(tmp_path):
    not_a_dir = write(tmp_path, MINIMAL, "plain.toml")
    assert load_error(not_a_dir / "x.toml").problem == "no such file"


def test_directory(tmp_path):
    assert "is a directory" in str(load_error(tmp_path))


def test_empty_path():
    with pytest.raises(SceneError, match="no file name given"):
        load_scene("")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX named pipes")
def test_named_pipe_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    # Opening a FIFO with no writer would block forever; the loader must not even try.
    assert "not a regular file" in str(load_error(fifo))


def test_unreadable_file(tmp_path, monkeypatch):
    path = write(tmp_path, MINIMAL)
    real_open = pathlib.Path.open

    def deny(self, *args, **kwargs):
        if self == path:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    # Tests may run as root, for whom chmod 000 does not stop reading: deny it directly.
    monkeypatch.setattr(pathlib.Path, "open", deny)
    assert load_error(path).problem == "permission denied"


def test_too_large(tmp_path):
    path = write(tmp_path, MINIMAL + "#" * (loader.MAX_FILE_BYTES + 10))
    assert "too large for a scene file" in str(load_error(path))


def test_binary_file(tmp_path):
    assert_rejected(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", None, "binary file")


def test_not_utf8(tmp_path):
    text = '[scene]\nname = "caf\xe9"\n'.encode("latin-1") + MINIMAL.encode()
    assert_rejected(tmp_path, text, None, "line 2: not UTF-8 text (byte 0xe9)")


def test_utf8_byte_order_mark_is_accepted(tmp_path):
    path = write(tmp_path, "\ufeff" + '[scene]\nname = "café ☕"\n' + MINIMAL)
    assert load_scene(path).name == "café ☕"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[scene]\nseed = \n" + MINIMAL, 2),
        ('[scene]\nname = "x"\n\n[[groups]]\ncount = 1\ncount = 2\n', 6),
        ("[[groups]]\ncount = 10\n[groups.wander\n", 3),
        ("[[groups]]\ncount = 10\nmax_speed = 1..0\n", 3),
    ],
    ids=["no-value", "duplicate-key", "unclosed-table", "bad-float"],
)
def test_toml_syntax_errors_give_the_line(tmp_path, text, line):
    message = assert_rejected(tmp_path, text, None, "invalid TOML")
    assert f"line {line}, column " in message


def test_empty_file_says_groups_are_missing(tmp_path):
    assert_rejected(tmp_path, "", "groups", "missing")


def test_loaded_scene_keeps_its_path_and_text(tmp_path):
    path = write(tmp_path, "# hello\n" + MINIMAL, "keep.toml")
    scene = load_scene(path)
    assert scene.source == path
    assert scene.text == "# hello\n" + MINIMAL
    # Source and text are not part of equality: the same scene from a dict is equal.
    assert scene == Scene.from_dict({"scene": {"name": "keep"}, "groups": [{"count": 10}]})


def test_load_accepts_str_paths_and_names_them_as_given(tmp_path, monkeypatch):
    write(tmp_path, "[[groups]]\ncount = 0\n", "bad.toml")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SceneError) as info:
        load_scene("./bad.toml")
    assert str(info.value).startswith("./bad.toml: groups[0].count: ")
