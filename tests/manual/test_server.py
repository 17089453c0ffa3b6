"""The grading page's server without a browser: labels in both languages, the token, the prefix, offline."""

from __future__ import annotations

import json
import re

from gradekit.web.serving import binding
from gradekit.manual.server import LABELS, labels


def test_every_label_is_in_english_and_chinese():
    en, zh = labels("en"), labels("zh")
    assert set(en) == set(zh) == set(LABELS)
    same = [k for k in LABELS if en[k] == zh[k]]
    assert not same, f"labels the Chinese catalog leaves in English: {same}"
    for key in LABELS:  # placeholders survive translation
        assert set(re.findall(r"\{\w+\}", en[key])) == set(re.findall(r"\{\w+\}", zh[key])), key


def test_the_page_fetches_nothing_and_carries_its_labels(tmp_path, monkeypatch):
    from gradekit.pages import look

    boot = {"prefix": "/", "assignment": "a", "labels": labels("zh"), "language": "zh"}
    html = look.render("grade.html", "zh", None, title="评分", boot=json.dumps(boot, ensure_ascii=False))
    assert 'lang="zh-CN"' in html and "答案分组" in html
    assert not re.search(r'(src|href)="(https?:)?//', html)  # no script, style or font from elsewhere
    assert "<script src" not in html and "<link" not in html


def test_a_jupyterhub_service_binds_where_the_hub_says(monkeypatch):
    for name in ("JUPYTERHUB_SERVICE_URL", "JUPYTERHUB_PUBLIC_URL", "JUPYTERHUB_PUBLIC_HUB_URL"):
        monkeypatch.delenv(name, raising=False)
    alone = binding(8123)
    assert (alone.host, alone.port, alone.prefix, alone.in_hub) == ("127.0.0.1", 8123, "/", False)
    monkeypatch.setenv("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:10101")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/services/grade/")
    b = binding()
    assert (b.host, b.port, b.prefix, b.in_hub) == ("127.0.0.1", 10101, "/services/grade/", True)
    assert "/services/grade/ on the hub" in __import__("gradekit.web.serving", fromlist=["where"]).where(b, 10101)
    monkeypatch.setenv("JUPYTERHUB_PUBLIC_HUB_URL", "https://hub.example.edu/hub/")
    assert binding().public == "https://hub.example.edu/services/grade/"   # the address the log gives
