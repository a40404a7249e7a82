"""Sharing a scene as one web page (`wander3d share`): the scene live in any browser.

The page (`page_html`, `write_page`) runs the JavaScript port's core (wander3d.port.js) from
wander3d's exact start, so it repeats `wander3d run` of the scene, and draws it with a vendored
three.js the way the desktop app does (its colours and proportions from wander3d.appearance,
its trails' levels of detail from wander3d.drawing.trail_plan, handed to the page in its
config). Headless: it builds on the port, the scene layer, the engine, the helpers and
wander3d.drawing (numpy); the page's own code is viewer.mjs and page.html beside this file.
"""

from .page import PAGE_SUFFIXES, THREE_VERSION, check_page_name, page_html, write_page

__all__ = ["PAGE_SUFFIXES", "THREE_VERSION", "check_page_name", "page_html", "write_page"]
