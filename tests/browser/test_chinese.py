"""A Chinese-speaking volunteer, whose browser asks for Chinese, joins by an invitation link and labels by
keyboard without meeting a word of English: the invitation, the study page, the sign-in page, the study list,
the labeling page with its shortcuts, a refused save, a skip, a category found by its Chinese name, their report
list, and a proposal waiting for their vote. Identifiers, codes, key names and what people wrote (titles,
bodies, the codebook's texts) aside. What was saved is what the screen showed."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from annotation.models import Assignment, Label
from annotation.services.invitations import invite
from codebook.services import changes
from codebook.services.proposals import open_proposal
from tests.factories import category, make_issue, make_source, make_study, make_user
from tests.oauth_replay import Platform

User = get_user_model()

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
# Words a Chinese page may hold: names of products and keys, the language switcher's "English", codes.
ALLOWED = {"Concord", "English", "GitHub", "Gitee", "Enter", "Esc", "Ctrl", "Backspace", "NR"}
CODE = re.compile(r"(?<![A-Za-z0-9.])[A-Z](?:\.\d+(?:\.[ivx]+)?)?(?![A-Za-z0-9])")
# What a person sees of the page: its text and the words read out to screen readers (aria-label, placeholder).
SEEN = """() => {
  const seen = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll("[aria-label], [placeholder]")) {
    if (el.offsetParent === null && el.tagName !== "DIALOG") continue;
    seen.push(el.getAttribute("aria-label") || "", el.getAttribute("placeholder") || "");
  }
  return seen.join("\\n");
}"""


def _english(page, data: list[str]) -> list[str]:
    text = page.evaluate(SEEN)
    for item in sorted(data, key=len, reverse=True):
        # Whole words only: the user "li" is no licence for "English" to read as "Eng sh".
        text = re.sub(rf"(?<![A-Za-z]){re.escape(item)}(?![A-Za-z])", " ", text)
    text = CODE.sub(" ", text)
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in ALLOWED})


@pytest.fixture
def chinese_study():
    lead = make_user("lead")
    source = make_source("mindspore/mindspore")
    titles = ["多卡训练时显存溢出", "安装后导入报错", "希望支持 Qwen2.5 的量化推理"]
    issues = [make_issue(source, title=t, body=f"{t}：复现步骤见下。", url="") for t in titles]
    study = make_study(lead, [make_user("wang")], issues=issues, name="大模型问题研究")
    # The codebook in Chinese, as a lab that labels in Chinese gives it: every category, by the lead's changes.
    for node in study.codebook.categories.order_by("level", "code"):
        chinese = {"C": "缺陷", "C.2": "内存"}.get(node.code, f"类别{node.code}")
        changes.translate(study, lead, node.pk, "为中文标注者", language="zh-hans",
                          texts={"name_second": chinese, "definition_second": f"{chinese}的定义。"})
    data = [*titles, *(f"{t}：复现步骤见下。" for t in titles), "mindspore/mindspore", "li", "lead", "wang",
            study.name, str(study.codebook)]
    return study, issues, data


def _join(page, live_server, study, data):
    """The volunteer's first visit: an invitation link, an account of their own, the study's page."""
    _, token = invite(study, study.memberships.get(role="lead").user)
    page.goto(f"{live_server.url}/join/{token}/")
    assert _english(page, data) == [], "the invitation"
    page.fill("input[name=username]", "li")
    page.fill("input[name=password1]", "长城-Great-Wall-2025")
    page.fill("input[name=password2]", "长城-Great-Wall-2025")
    page.click("main button[type=submit]")
    page.get_by_role("heading", name=study.name).wait_for()
    assert "欢迎加入" in page.inner_text(".messages")
    assert _english(page, data) == [], "the study page"
    page.click("form[action$='/logout/'] button")


def _walk(page, live_server, study, data):
    page.goto(f"{live_server.url}/accounts/login/")
    assert page.locator("html").get_attribute("lang") == "zh-hans"
    assert _english(page, data) == [], "the sign-in page"
    page.fill("input[name=username]", "li")
    page.fill("input[name=password]", "长城-Great-Wall-2025")
    page.click("main button[type=submit]")
    page.get_by_role("heading", name="你的研究").wait_for()
    assert _english(page, data) == [], "the study list"
    page.get_by_role("link", name="标注", exact=True).click()
    page.wait_for_selector("#label-form[data-ready]")
    assert _english(page, data) == [], "the labeling page"


def test_a_chinese_volunteer_labels_without_meeting_english(live_server, browser, chinese_study):
    study, issues, data = chinese_study
    titles = [issue.title for issue in issues]
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        _join(page, live_server, study, data)
        li = User.objects.get(username="li")
        _walk(page, live_server, study, data)
        page.keyboard.press("?")
        page.locator("#shortcuts").wait_for(state="visible")
        assert _english(page, data) == [], "the shortcuts"
        page.keyboard.press("Escape")

        # Enter with nothing chosen: refused, in Chinese, and nothing is stored.
        page.keyboard.press("Enter")
        page.locator("#status .error").wait_for()
        assert "请选择一个类型" in page.inner_text("#status") and not Label.objects.exists()
        assert _english(page, data) == [], "a refused save"

        # "/" finds the category by its Chinese name; Enter picks the whole path, Enter saves it.
        first = page.inner_text("h1.issue-title")
        page.keyboard.press("/")
        page.keyboard.type("内存")
        page.get_by_role("option", name="缺陷 › C.2 内存", exact=True).wait_for()
        assert _english(page, data) == [], "the finder"
        page.keyboard.press("Enter")
        assert page.inner_text("[data-chosen]").startswith("缺陷 › C.2 内存")
        page.keyboard.press("Enter")
        page.locator("h1.issue-title", has_text=titles[1]).wait_for()
        assert page.inner_text("#status") == "已保存。"
        saved = Label.objects.get(annotator=li)
        assert (saved.issue.title, saved.code) == (first, "C.2")
        assert _english(page, data) == [], "the next report, after a save"

        # A skip with a reason typed in Chinese.
        second = page.inner_text("h1.issue-title")
        page.keyboard.press("s")
        page.keyboard.type("需要再看看")
        page.keyboard.press("Enter")
        page.locator("h1.issue-title", has_text=titles[2]).wait_for()
        assert page.inner_text("#status") == "已跳过。"
        skipped = Assignment.objects.get(queue__annotator=li, issue__title=second)
        assert skipped.skipped and skipped.skip_reason == "需要再看看"
        assert _english(page, data) == [], "the next report, after a skip"

        page.get_by_role("link", name="你的报告").click()
        page.get_by_role("heading", name=f"报告：{study.name}").wait_for()
        assert _english(page, [*data, "需要再看看"]) == [], "the report list"

        # wang proposes a category; the header tells li a vote waits, and li votes on the proposal's page.
        proposal = open_proposal(study, User.objects.get(username="wang"), parent_id=category("C", study.codebook).pk,
                                 name="分布式通信", definition="多卡之间的通信错误。", example_ids=[issues[0].pk])
        data += ["分布式通信", "多卡之间的通信错误。"]
        page.reload()
        page.get_by_test_id("vote-badge").click()
        page.get_by_role("heading", name="等待你投票的提案").wait_for()
        assert _english(page, data) == [], "the votes waiting"
        page.get_by_role("link", name="分布式通信").click()
        page.get_by_role("heading", name="分布式通信").wait_for()
        assert _english(page, data) == [], "a proposal"
        page.get_by_label("是").check()
        page.get_by_role("button", name="投票").click()
        page.get_by_text("你投了赞成票。").wait_for()
        assert _english(page, data) == [], "a proposal after the vote"
        assert proposal.votes.get(voter=li).choice is True
        assert errors == []
    finally:
        context.close()


def test_a_chinese_volunteer_joins_by_signing_in_with_gitee_and_labels(live_server, browser, chinese_study, settings,
                                                                         httpserver):
    """The invitation accepted by signing in with Gitee (its recorded answers, from a real HTTP server on
    127.0.0.1), in Chinese from the link to the first saved label."""
    study, issues, data = chinese_study
    gitee = Platform(httpserver, "gitee", "/oauth/token", "/api/v5/user")
    settings.SOCIALACCOUNT_PROVIDERS = {"gitee": {"APPS": [{"client_id": "ge-client", "secret": "ge-secret"}],
                                                  "GITEE_URL": gitee.url}}
    data = [*data, "wang-xiaoming", "王小明"]
    context = browser.new_context(locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        _, token = invite(study, study.memberships.get(role="lead").user)
        page.goto(f"{live_server.url}/join/{token}/")
        assert _english(page, data) == [], "the invitation, with its sign-in buttons"
        page.get_by_role("button", name="使用 Gitee 登录").click()
        join = page.get_by_role("button", name="加入", exact=True)
        join.wait_for()  # back from Gitee: the study and the account, made only on Join
        assert not User.objects.filter(username="wang-xiaoming").exists()
        assert page.input_value("input[name=username]") == "wang-xiaoming"
        assert _english(page, data + ["Gitee"]) == [], "the invitation, signed in at Gitee"
        join.click()
        page.get_by_role("heading", name=study.name).wait_for()
        assert _english(page, data) == [], "the study page"
        person = User.objects.get(username="wang-xiaoming")
        assert not person.has_usable_password() and study.memberships.filter(user=person).exists()
        page.get_by_role("link", name="标注", exact=True).click()
        page.wait_for_selector("#label-form[data-ready]")
        assert _english(page, data) == [], "the labeling page"
        first = page.inner_text("h1.issue-title")
        page.keyboard.press("/")
        page.keyboard.type("内存")
        page.get_by_role("option", name="缺陷 › C.2 内存", exact=True).wait_for()
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        page.get_by_text("已保存。").wait_for()
        saved = Label.objects.get(annotator=person)
        assert (saved.issue.title, saved.code) == (first, "C.2")
        assert [path for path, *_ in gitee.requests] == ["/oauth/token", "/api/v5/user"]
    finally:
        context.close()
