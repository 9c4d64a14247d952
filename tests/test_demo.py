"""The README's first command: ``interpretopt demo`` and the ``list`` commands."""

from __future__ import annotations

import pytest

from interpretopt.cli import main
from interpretopt.demo import run_demo


def test_demo_explains_the_forest_with_every_method():
    lines: list[str] = []
    out = run_demo(random_state=0, echo=lines.append)
    text = "\n".join(lines)
    for title in ("BRCG", "CRL", "ABBR", "IMD", "MTRE-PAN"):
        assert f"== {title}" in text
    assert out["forest_test_accuracy"] > 0.9
    assert out["brcg_fidelity"] > 0.85 and out["brcg_rules"] >= 1
    assert 0.5 < out["crl_autac"] <= 1.0
    assert 0.0 <= out["abbr_test"] <= 1.0
    assert 0.0 <= out["imd_f1"] <= 1.0
    assert out["mtrepan_parity"] > 70.0


def test_demo_is_deterministic_for_a_seed():
    a = run_demo(random_state=1, echo=lambda s: None)
    b = run_demo(random_state=1, echo=lambda s: None)
    assert a == b


@pytest.mark.parametrize("what", ["datasets", "models", "solvers", "methods", "configs"])
def test_list_commands(what, capsys):
    assert main(["list", what]) == 0
    printed = capsys.readouterr().out
    assert printed.strip()
    if what == "solvers":
        for name in ("highs", "ortools_glop", "ortools_pdlp", "ortools_cpsat", "ortools_scip"):
            line = next(l for l in printed.splitlines() if l.split()[:1] == [name])
            assert "True" in line.split()[1]
    if what == "methods":
        assert "False" not in printed


def test_unknown_list_target_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit):
        main(["list", "nothing"])
    assert "invalid choice" in capsys.readouterr().err


def test_run_with_a_missing_data_dir_is_one_message_naming_the_files_and_data_dir(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("INTERPRETOPT_DATA", raising=False)  # main() exports --data-dir; restored after the test
    config = tmp_path / "one.yaml"
    config.write_text(
        "name: one\nmethod: dummy_tree\nparams: {max_depth: 2}\ndatasets: [pima]\nmodels: [DT1]\n"
        "repetitions: 1\nseed: 0\n"
    )
    code = main(["--data-dir", str(tmp_path / "absent"), "run", str(config), "--out", str(tmp_path / "out"),
                 "--quiet"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "pima (pima.tsv.gz)" in captured.err
    assert "does not exist" in captured.err and "--data-dir DIR" in captured.err


def test_print_of_a_fitted_estimator_shows_what_it_learned():
    """print(model) shows the rules (str), repr stays scikit-learn's parameters."""
    from interpretopt.methods import BRCGClassifier

    X = [[0, 1], [1, 0], [1, 1], [0, 0]] * 5
    y = [0, 1, 1, 0] * 5
    model = BRCGClassifier(binarizer="passthrough", max_iter=3)
    assert str(model) == repr(model) == "BRCGClassifier(binarizer='passthrough', max_iter=3)"
    model.fit(X, y)
    assert repr(model) == "BRCGClassifier(binarizer='passthrough', max_iter=3)"
    assert str(model) == model.render() and "predict 1 if" in str(model)


def test_the_demo_prints_one_header_per_rule_set():
    lines: list[str] = []
    run_demo(random_state=0, echo=lines.append)
    text = "\n".join(lines)
    assert "Predict class 1 when" not in text and text.count("predict 1 if any of these") == 1
