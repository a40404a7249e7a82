"""File ▸ Share as web page…: the running scene, with the slider edits, written as one page."""

from __future__ import annotations

import base64
import json
import re

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from PyQt6.QtWidgets import QFileDialog


def page_config(path) -> dict:
    text = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="config">(.*?)</script>', text, re.S)
    assert found
    return json.loads(found.group(1))


def test_share_writes_the_running_scene_with_its_edits(window, tmp_path):
    window.panel.groups[0].controls["radius"].slider.setValue(700)
    radius = window.panel.groups[0].controls["radius"].value()
    out = tmp_path / "lesson.html"
    assert window.web_share.share(out)
    config = page_config(out)
    shown = {p["name"]: p["value"] for p in config["groups"][0]["params"]}
    assert shown["radius"] == radius == window.session.groups[0].wander.radius
    importmap = re.search(r'<script type="importmap">(.*?)</script>', out.read_text())
    assert importmap is not None, "the page has no import map"
    imports = importmap.group(1)
    core = base64.b64decode(json.loads(imports)["imports"]["wander"].partition(",")[2]).decode()
    assert f"radius: {radius!r}" in core  # the core's scene block has the edit too
    assert str(out) in window.statusBar().currentMessage()


def test_the_menu_asks_where_and_adds_html(window, monkeypatch, tmp_path):
    asked = []

    def save_name(parent, title, start, filter):
        asked.append(start)
        return str(tmp_path / "chosen"), filter

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_name)
    window.settings.setValue("last_dir", str(tmp_path))
    window.commands.share_page.trigger()
    assert asked == [str(tmp_path / "small.html")]  # the scene's name
    assert (tmp_path / "chosen.html").is_file()


def test_cancel_writes_nothing(window, monkeypatch, tmp_path):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a: ("", ""))
    (tmp_path / "pages").mkdir()
    window.settings.setValue("last_dir", str(tmp_path / "pages"))
    assert not window.web_share.share_dialog()
    assert list((tmp_path / "pages").iterdir()) == []


def test_a_page_that_cannot_be_written_is_a_dialog_and_the_scene_runs_on(
    window, dialogs, qtbot, tmp_path
):
    run = window.session.generation
    assert not window.web_share.share(tmp_path / "missing" / "x.html")
    ((title, text),) = dialogs
    assert title == "Cannot share" and "does not exist" in text
    assert window.session.generation == run
