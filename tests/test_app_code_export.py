"""File ▸ Export code…: the running scene, with the slider edits, written as a port."""

from __future__ import annotations

import pytest
from extras_support import skip_reason

pytest.importorskip("PyQt6", reason=skip_reason("app"))

from app_support import wait_engine_idle
from PyQt6.QtWidgets import QDialog

from wander3d.app.code_export import ExportCodeDialog
from wander3d.scene import load_scene


def test_export_writes_the_running_scene_with_its_edits(window, qtbot, tmp_path):
    window.panel.groups[0].controls["radius"].slider.setValue(700)
    folder = tmp_path / "game"
    assert window.code_export.export("js", folder)
    exported = load_scene(folder / "scene.toml")
    assert exported.groups == window.session.groups
    assert exported.groups[0].wander.radius == window.panel.groups[0].controls["radius"].value()
    core = (folder / "wander.mjs").read_text()
    assert f"radius: {exported.groups[0].wander.radius!r}" in core
    assert (folder / "adapter" / "three-wander.mjs").is_file()
    assert str(folder) in window.statusBar().currentMessage()


def test_the_menu_asks_for_language_and_folder(window, monkeypatch, tmp_path):
    asked = []

    def accept(dialog):
        asked.append(dialog.choice())
        dialog.folder.setText(str(tmp_path / "chosen"))
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ExportCodeDialog, "exec", accept)
    window.settings.setValue("last_dir", str(tmp_path))
    window.commands.export_code.trigger()
    ((lang, folder),) = asked
    assert lang == "js" and folder == tmp_path / "small-js"  # the scene's name, the language
    assert (tmp_path / "chosen" / "conformance.mjs").is_file()
    assert window.settings.value("export_code_lang") == "js"


def test_cancel_writes_nothing(window, monkeypatch, tmp_path):
    monkeypatch.setattr(ExportCodeDialog, "exec", lambda d: QDialog.DialogCode.Rejected)
    (tmp_path / "games").mkdir()
    window.settings.setValue("last_dir", str(tmp_path / "games"))
    assert not window.code_export.export_dialog()
    assert list((tmp_path / "games").iterdir()) == []


def test_a_folder_that_cannot_be_written_is_a_dialog_and_the_scene_runs_on(
    window, dialogs, qtbot, tmp_path
):
    run = window.session.generation
    assert not window.code_export.export("js", tmp_path / "missing" / "game")
    assert len(dialogs) == 1 and "does not exist" in dialogs[0][1]
    assert window.session.generation == run
    window.session.set_running(True)
    qtbot.waitUntil(lambda: window.session.step > 5, timeout=3000)
    window.session.set_running(False)
    wait_engine_idle(window, qtbot)


def test_the_export_action_is_in_the_file_menu(window):
    bar = window.menuBar()
    file_menu = next(a.menu() for a in bar.actions() if a.text() == "&File")
    assert window.commands.export_code in file_menu.actions()
