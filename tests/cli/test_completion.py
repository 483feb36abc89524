"""Shell completion and the man page, generated from the parser; the config file's XDG path."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from anyurl.cli import completion
from anyurl.cli.main import build_parser, main
from anyurl.config import DEFAULT_CONFIG_PATH, default_config_path, load_config

REPO = Path(__file__).resolve().parents[2]


def _bash_complete(script: str, words: list[str]) -> list[str]:
    """What bash's completion function offers for ``words`` (the last one being typed)."""
    program = (f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)})\n"
               f"COMP_CWORD={len(words) - 1}\n_anyurl\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
    result = subprocess.run(["bash", "-c", program], capture_output=True, text=True,
                            timeout=30, cwd=REPO)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.fixture(scope="module")
def bash_script() -> str:
    return completion.bash(build_parser())


def test_bash_completes_the_commands(bash_script):
    assert "mirror" in _bash_complete(bash_script, ["anyurl", "mi"])
    assert set(_bash_complete(bash_script, ["anyurl", ""])) >= {"get", "mirror", "parse",
                                                                  "serve"}


def test_bash_completes_options_of_the_command_and_of_a_bare_url(bash_script):
    assert "--output" in _bash_complete(bash_script, ["anyurl", "get", "--out"])
    assert "--output" in _bash_complete(bash_script, ["anyurl", "--out"])  # anyurl URL = get
    assert "--completion" in _bash_complete(bash_script, ["anyurl", "--comp"])
    mirror = _bash_complete(bash_script, ["anyurl", "mirror", "--"])
    assert "--warc" in mirror and "--completion" not in mirror


def test_bash_completes_choices_and_file_names(bash_script):
    assert _bash_complete(bash_script, ["anyurl", "get", "--retry-jitter", ""]) == [
        "equal", "full", "none"]
    assert "pyproject.toml" in _bash_complete(bash_script, ["anyurl", "get", "-o", "pypr"])


def test_the_command_prints_every_script_and_the_man_page(capsys):
    for shell in completion.SHELLS:
        assert main(["--completion", shell]) == 0
        out = capsys.readouterr().out
        assert "mirror" in out and "output" in out, shell
    assert main(["--man"]) == 0
    page = capsys.readouterr().out
    assert page.startswith(".TH ANYURL 1")
    for words in (".SS anyurl mirror", "\\fB\\-\\-output\\fR", "ANYURL_DEBUG",
                  "XDG_CONFIG_HOME"):
        assert words in page


def test_an_unknown_shell_exits_2_and_names_the_shells(capsys):
    assert main(["--completion", "tcsh"]) == 2
    assert "bash, zsh, fish" in capsys.readouterr().err


def test_every_subcommand_option_is_in_every_script():
    parser = build_parser()
    scripts = {shell: getattr(completion, shell)(parser) for shell in completion.SHELLS}
    for _name, (_, sub) in completion.subcommands(parser).items():
        for option in completion.options_of(sub):
            long = next((f for f in option.flags if f.startswith("--")), None)
            if long is None:
                continue
            assert long in scripts["bash"] and long in scripts["zsh"], long
            assert f"-l {long[2:]}" in scripts["fish"], long


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_script_parses_in_its_shell_where_installed(shell, tmp_path):
    program = shutil.which(shell)
    if program is None:  # checked by test_every_subcommand_option_is_in_every_script
        pytest.fail(f"{shell} is not installed: apt-get install {shell}")
    path = tmp_path / f"anyurl.{shell}"
    path.write_text(getattr(completion, shell)(build_parser()))
    result = subprocess.run([program, "-n", str(path)], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0, result.stderr


# -- the config file under $XDG_CONFIG_HOME --------------------------------------------------


def test_the_config_file_is_under_xdg_config_home_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_config_path() == tmp_path / "anyurl" / "config.toml"
    (tmp_path / "anyurl").mkdir()
    (tmp_path / "anyurl" / "config.toml").write_text("retry = 7\n")
    assert load_config().retry == 7
    other = tmp_path / "other.toml"
    other.write_text("retry = 2\n")
    assert load_config(other).retry == 2  # --config FILE first


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_an_unset_empty_or_relative_xdg_config_home_means_dot_config(value, monkeypatch,
                                                                     tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", value)
    assert default_config_path() == tmp_path / ".config" / "anyurl" / "config.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert default_config_path() == DEFAULT_CONFIG_PATH.expanduser()
    assert str(default_config_path()).startswith(os.fspath(tmp_path))
