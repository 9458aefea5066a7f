from click.testing import CliRunner

from inflect import __version__
from inflect.cli import main


def test_help_lists_the_program():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    assert "Morphological inflection" in result.output


def test_version():
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.output


def test_train_help_names_every_preset():
    from inflect.training.config import PRESETS

    result = CliRunner().invoke(main, ["train", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for name in PRESETS:
        assert name in text, f"train --help does not name the preset {name!r}"
