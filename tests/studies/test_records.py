"""Recorded runs as dataclasses: their JSON comes from their fields, and every record the package ships
reads back as exactly the file it is (each value written back unchanged), so nothing shipped was re-recorded
or lost by the reader."""

import json
from dataclasses import dataclass

import pytest

from attnbook.benchmark.bench_results import BenchmarkResult
from attnbook.core.records import Environment, Record, merged_runs, package_file
from attnbook.studies.bottleneck import BottleneckStudy
from attnbook.studies.luong_decoders import DecoderComparison
from attnbook.studies.realcompare import RealComparison
from attnbook.studies.recorded import RecordedTranslations
from attnbook.studies.shipped import GrammarBaselineRun, GrammarTranslatorRun, ShippedRun, TransformerRun
from attnbook.studies.small_data import SmallDataStudy
from attnbook.studies.training_choices import TrainingChoices
from attnbook.studies.units import UnitsComparison

SHIPPED = [
    BenchmarkResult,
    BottleneckStudy,
    DecoderComparison,
    GrammarBaselineRun,
    GrammarTranslatorRun,
    RealComparison,
    RecordedTranslations,
    ShippedRun,
    SmallDataStudy,
    TrainingChoices,
    TransformerRun,
    UnitsComparison,
]


def _subclasses(kind: type) -> set[type]:
    found = set(kind.__subclasses__())
    return found.union(*(_subclasses(sub) for sub in found))


def test_every_kind_of_record_that_ships_a_file_is_read_back_below():
    shipping = {kind for kind in _subclasses(Record) if getattr(kind, "PACKAGED", None)}
    assert shipping == set(SHIPPED), sorted(kind.__name__ for kind in shipping ^ set(SHIPPED))


@pytest.mark.parametrize("kind", SHIPPED, ids=lambda kind: kind.PACKAGED)
def test_every_shipped_record_reads_back_as_exactly_its_file(kind):
    raw = json.loads(package_file(kind.PACKAGED).read_text(encoding="utf-8"))
    record = kind.packaged()
    assert isinstance(record, kind)
    assert record.to_dict() == raw
    assert kind.from_dict(record.to_dict()) == record


@dataclass(frozen=True)
class _Curve(Record):
    WHAT = "a curve"

    name: str
    steps: tuple[int, ...]
    pairs: tuple[tuple[int, float], ...]
    where: Environment | None = None
    extra: dict[str, float] | None = None


def test_a_record_derives_its_json_from_its_fields_nested_and_optional_ones_too(tmp_path):
    where = Environment("d", "cpu", "x", 1, 2, None, "t", None, "p", "l")
    curve = _Curve("val", (10, 20), ((10, 0.5), (20, 0.25)), where, {"a": 1.0})
    assert curve.to_dict()["pairs"] == [[10, 0.5], [20, 0.25]]
    assert _Curve.load(curve.save(tmp_path / "sub" / "c.json")) == curve
    assert _Curve.from_dict({"name": "n", "steps": [], "pairs": []}) == _Curve("n", (), ())


def test_a_file_of_another_kind_is_refused_with_its_name_and_the_field(tmp_path):
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"name": "n", "steps": ["ten"], "pairs": []}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.json: not a curve \(steps: 'ten' is not a <class 'int'>"):
        _Curve.load(path)
    path.write_text(json.dumps({"steps": []}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"other\.json: not a curve \('name'\)"):
        _Curve.load(path)


@dataclass(frozen=True)
class _Part:
    config: dict
    runs: tuple


def test_merged_runs_refuses_a_run_twice_and_other_configurations():
    assert merged_runs([_Part({}, (1, 2)), _Part({}, (3,))], key=lambda run: run) == (1, 2, 3)
    with pytest.raises(ValueError, match="the run 2 is recorded in two parts"):
        merged_runs([_Part({}, (1, 2)), _Part({}, (2,))], key=lambda run: run)
    with pytest.raises(ValueError, match="different configurations"):
        merged_runs([_Part({}, (1,)), _Part({"a": 1}, (2,))], key=lambda run: run)
