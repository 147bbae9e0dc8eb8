"""Configuration dataclasses as command-line flags, derived from their
fields (never copied by hand).

Each field of a (possibly nested) frozen config dataclass becomes one flag:
``batch_size`` becomes ``--batch-size``; the flag's type, default and
choices come from the field, and its help from the ``Attributes:``
section of the class's docstring. A field's ``metadata`` may set
``minimum`` (checked by :func:`attnbook.core.config.check_fields`,
in the dataclass and in the parser), ``choices`` and ``flag`` (another
name, e.g. ``--epochs`` for ``max_epochs``). :func:`config_from_given`
builds a configuration from its own defaults and the flags given,
so two runs with different defaults (the toy grammar's, the real pairs')
share one set of flags. The options every command shares (``--device``,
``--threads``, ``--json``, ``--progress``) are in
:mod:`attnbook.cli.options`.
A field that holds one of several configuration classes (``kinds``
metadata: the model, a recurrent one or a Transformer) gets one flag that
chooses the kind by name (``--model transformer``) and the flags of every
kind's fields; a flag of a kind not chosen is refused.
A ``bool`` field gets ``--name`` and ``--no-name``;
so does a ``bool | None`` field, which stays ``None`` (the configuration's
own choice) when neither is given. :func:`given_fields` says which flags
were given on the command line (a flag given with its default value counts
as given).

>>> import argparse
>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Demo:
...     '''A demo.
...
...     Attributes:
...         batch_size: pairs per batch.
...     '''
...
...     batch_size: int = field(default=8, metadata={"minimum": 1})
>>> parser = argparse.ArgumentParser()
>>> add_config_arguments(parser, Demo)
>>> config_from_arguments(Demo, parser.parse_args(["--batch-size", "32"]))
Demo(batch_size=32)
>>> (
...     given_fields(parser.parse_args(["--batch-size", "8"])),
...     given_fields(parser.parse_args([])),
... )
(frozenset({'batch_size'}), frozenset())
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import typing
from typing import Any


def _attribute_help(cls: type) -> dict[str, str]:
    """``name -> text`` from the ``Attributes:``
    section of a class's docstring."""
    doc = cls.__doc__ or ""
    section = (
        doc.split("Attributes:", 1)[1] if "Attributes:" in doc else ""
    )
    section = re.split(r"\n\s*\n|\n\s*Raises:", section, maxsplit=1)[0]
    help_texts: dict[str, str] = {}
    for match in re.finditer(
        r"^\s{4,}([\w, ]+):\s(.*(?:\n\s{10,}.*)*)",
        section,
        flags=re.MULTILINE,
    ):
        text = (
            " ".join(match.group(2).split()).replace("``", "").rstrip(".")
        )
        # :func:`~a.b` -> b
        text = re.sub(r":\w+:`~?(?:[\w.]+\.)?(\w+)`", r"\1", text)
        for name in match.group(1).split(","):
            help_texts[name.strip()] = text
    return help_texts


_KIND_NAMES = {int: "integer", float: "number", str: "text"}
_METAVARS = {int: "N", float: "X", str: "TEXT"}


# the namespace attribute that records the config flags given
_GIVEN = "given_config_fields"
_GIVEN_FLAGS = "given_config_flags"  # and the flag each was given as


def _record_given(
    namespace: argparse.Namespace, dest: str, option_string: str | None
) -> None:
    setattr(
        namespace, _GIVEN, getattr(namespace, _GIVEN, frozenset()) | {dest}
    )
    flags = getattr(namespace, _GIVEN_FLAGS, {})
    setattr(
        namespace, _GIVEN_FLAGS, {**flags, dest: option_string or dest}
    )


class _StoreGiven(argparse.Action):
    """Store the flag's value, like argparse's default action,
    and record that the flag was given."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        if isinstance(
            self, argparse.BooleanOptionalAction
        ):  # --name stores True, --no-name False
            values = not (option_string or "").startswith("--no-")
        setattr(namespace, self.dest, values)
        _record_given(namespace, self.dest, option_string)


class _BooleanGiven(_StoreGiven, argparse.BooleanOptionalAction):
    """``--name``/``--no-name`` (argparse's ``BooleanOptionalAction``),
    recording that one was given."""


def given_fields(args: argparse.Namespace) -> frozenset[str]:
    """The fields whose flags (added by :func:`add_config_arguments`)
    were given on the command line.

    A flag left out takes its default; one given with the default's value
    is still *given*, so a caller with other defaults of its own
    (``train --corpus``) can tell "not asked for" from "asked for 4".
    """
    return getattr(args, _GIVEN, frozenset())


def _parse_at_least(kind: type, minimum: Any = None) -> Any:
    def parse(text: str) -> Any:
        value = kind(text)
        if minimum is not None and value < minimum:
            raise argparse.ArgumentTypeError(
                f"must be at least {minimum}, got {value}"
            )
        return value

    # argparse names the type in its "invalid ... value" message
    parse.__name__ = _KIND_NAMES[kind]
    return parse


def add_config_arguments(
    parser: argparse.ArgumentParser,
    cls: type,
    *more: Any,
    labels: tuple[str, ...] = (),
    help_texts: dict[str, str] | None = None,
) -> None:
    """Add one flag per field of the dataclass ``cls`` (recursing into
    nested dataclasses).

    With more runs (``train``: the toy grammar's run and the runs on real
    pairs), a field name that two of them share gets one flag. A run is a
    dataclass (its defaults) or an instance of one (its values, and only
    the fields of the model kind it holds). The help shows each run's
    default, after its label (``labels``, one per run, e.g. ``"on the toy
    grammar"``), where they differ, and says which run a field only one
    class has belongs to.

    Args:
        help_texts: help for some fields by name, in place of their
            docstring's (which may name code a user never sees).
            In either, a field name with an underscore is written as its
            flag (``min_delta`` as ``--min-delta``).

    Raises:
        TypeError: a field's type is not ``int``, ``float``, ``str``,
            ``bool``, ``bool | None`` or a dataclass.
    """
    runs = (cls, *more)
    classes = list(
        dict.fromkeys(r if isinstance(r, type) else type(r) for r in runs)
    )
    defaults = [
        _leaf_defaults(r)
        if isinstance(r, type)
        else _leaf_defaults(type(r), r, held_only=True)
        for r in runs
    ]
    flags = {
        name: flag_name(item)
        for c in classes
        for name, item in _leaf_fields(c).items()
    }
    # a field of fewer classes than all belongs to their runs only
    partial = {
        name
        for name in flags
        if sum(name in _leaf_fields(c) for c in classes) < len(classes)
    }
    added: set[str] = set()
    for config_class in classes:
        _add_fields(
            parser,
            config_class,
            added,
            lambda name, text: _help(
                name,
                text,
                help_texts or {},
                flags,
                defaults,
                labels,
                name in partial,
            ),
        )


def _shown(value: Any) -> str:
    """A default as the help shows it."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "chosen by the model" if value is None else str(value)


def _help(
    name: str,
    docstring: str,
    overrides: dict[str, str],
    flags: dict[str, str],
    defaults: list[dict[str, Any]],
    labels: tuple[str, ...],
    partial: bool = False,
) -> str:
    """A field's help: its text, field names written as flags, then its
    default for each run that has it (``partial``: a field only some
    runs' classes have, named by the first of them)."""
    text = overrides.get(name, docstring)
    for other, flag in flags.items():
        if "_" in other:
            text = re.sub(rf"\b{other}\b", flag, text)
    values = [
        (label, d[name])
        for label, d in zip(
            labels or ("",) * len(defaults), defaults, strict=True
        )
        # a run labelled by this flag's value need not show it again
        if name in d and f"{flags[name]} {_shown(d[name])}" not in label
    ]
    if len({repr(v) for _, v in values}) == 1:
        shown = _shown(values[0][1])
        if partial and labels:
            return f"{text} (default: {shown}; {values[0][0]} only)"
        return f"{text} (default: {shown})"
    shown = ", ".join(f"{_shown(v)} {label}" for label, v in values)
    return f"{text} (default: {shown})"


def _add_fields(
    parser: argparse.ArgumentParser,
    cls: type,
    added: set[str],
    help_of: Any,
) -> None:
    hints = typing.get_type_hints(cls)
    help_texts = _attribute_help(cls)
    defaults = cls()
    for item in dataclasses.fields(cls):
        kind = hints[item.name]
        kinds = item.metadata.get("kinds")
        if kinds is not None:
            if item.name not in added:
                added.add(item.name)
                parser.add_argument(
                    flag_name(item),
                    dest=item.name,
                    default=getattr(defaults, item.name).kind,
                    choices=tuple(kinds),
                    action=_StoreGiven,
                    help=help_of(
                        item.name, help_texts.get(item.name, item.name)
                    ).replace("%", "%%"),
                )
            for member in kinds.values():
                _add_fields(parser, member, added, help_of)
            continue
        if dataclasses.is_dataclass(kind):
            _add_fields(parser, kind, added, help_of)
            continue
        if item.name in added:
            continue
        added.add(item.name)
        flag = flag_name(item)
        default = getattr(defaults, item.name)
        options: dict[str, Any] = {
            "dest": item.name,
            "default": default,
            "help": help_of(
                item.name, help_texts.get(item.name, item.name)
            ).replace("%", "%%"),
        }
        if kind is bool or kind == bool | None:
            parser.add_argument(flag, action=_BooleanGiven, **options)
            continue
        if kind not in (int, float, str):
            raise TypeError(
                f"{cls.__name__}.{item.name}: no flag for a field of type "
                f"{kind}"
            )
        minimum = item.metadata.get("minimum")
        options["action"] = _StoreGiven
        options["type"] = (
            kind if kind is str else _parse_at_least(kind, minimum)
        )
        if "choices" in item.metadata:
            options["choices"] = item.metadata["choices"]
        else:
            options["metavar"] = _METAVARS[kind]
        parser.add_argument(flag, **options)


def _leaf_defaults(
    cls: type, instance: Any = None, *, held_only: bool = False
) -> dict[str, Any]:
    """The default of every leaf field of ``cls`` by name (``instance``'s
    values where given), nested defaults as their fields declare them
    (before a ``__post_init__`` settles a ``None``); ``held_only``: of the
    kinds a field may hold, only the held one's fields."""
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        value = (
            _default_of(item)
            if instance is None
            else getattr(instance, item.name)
        )
        kinds = item.metadata.get("kinds")
        if kinds is not None:
            # the kind held by default, and each kind's fields: the held
            # one's values, the others' own defaults
            values[item.name] = value.kind
            for member in kinds.values():
                held = value if type(value) is member else None
                if held is None and held_only:
                    continue
                values.update(_leaf_defaults(member, held))
        elif dataclasses.is_dataclass(hints[item.name]):
            values.update(_leaf_defaults(hints[item.name], value))
        else:
            values[item.name] = value
    return values


def flag_name(item: dataclasses.Field) -> str:
    """The flag of a configuration field: its ``flag`` metadata,
    else ``--`` and the name with dashes."""
    return item.metadata.get("flag", "--" + item.name.replace("_", "-"))


def _leaf_fields(cls: type) -> dict[str, dataclasses.Field]:
    """Every non-dataclass field of ``cls`` and of the dataclasses nested
    in it, by name."""
    hints = typing.get_type_hints(cls)
    leaves: dict[str, dataclasses.Field] = {}
    for item in dataclasses.fields(cls):
        kind = hints[item.name]
        kinds = item.metadata.get("kinds")
        if kinds is not None:
            # the field choosing the kind, and every kind's fields
            leaves[item.name] = item
            for member in kinds.values():
                leaves.update(_leaf_fields(member))
        elif dataclasses.is_dataclass(kind):
            leaves.update(_leaf_fields(kind))
        else:
            leaves[item.name] = item
    return leaves


def _default_of(item: dataclasses.Field) -> Any:
    if item.default_factory is not dataclasses.MISSING:
        return item.default_factory()
    return item.default


def _build_given(
    cls: type, given: dict[str, Any], default: Any = None
) -> Any:
    """``cls`` from ``default`` (its own default when ``None``),
    with the ``given`` leaf fields set.

    Raises:
        ValueError: a field given belongs to a kind not chosen
            (``--attention`` with ``--model transformer``).
    """
    hints = typing.get_type_hints(cls)
    base = cls() if default is None else default
    values = {}
    for item in dataclasses.fields(cls):
        if not item.init:
            continue
        kind = hints[item.name]
        kinds = item.metadata.get("kinds")
        if kinds is not None:
            held = (
                _default_of(item)
                if default is None
                else getattr(default, item.name)
            )
            name = given.get(item.name, held.kind)
            member = kinds[name]
            for other_name, other in kinds.items():
                for leaf, field_ in _leaf_fields(other).items():
                    if leaf in given and leaf not in _leaf_fields(member):
                        # a kind left at its default: say how to ask for
                        # the one the flag belongs to
                        flag = flag_name(item)
                        switch = (
                            ""
                            if item.name in given
                            else f", or give {flag} {other_name}"
                        )
                        raise ValueError(
                            f"{flag_name(field_)} has no effect on "
                            f"{flag_name(item)} {name}; leave it out"
                            + switch
                        )
            values[item.name] = _build_given(
                member, given, held if type(held) is member else None
            )
        elif dataclasses.is_dataclass(kind):
            # the nested default as the field declares it, before the
            # parent's __post_init__ settles it (or the default's own)
            values[item.name] = _build_given(
                kind,
                given,
                _default_of(item)
                if default is None
                else getattr(default, item.name),
            )
        else:
            values[item.name] = given.get(
                item.name, getattr(base, item.name)
            )
    return cls(**values)


def config_from_given(
    cls: type,
    args: argparse.Namespace,
    *,
    what: str,
    default: Any = None,
) -> Any:
    """Build the configuration ``cls`` from its defaults and the flags
    given on the command line.

    A flag left out takes ``cls``'s default, or ``default``'s value (so a
    run with defaults of its own, the run on real pairs, keeps them);
    a flag given that ``cls`` has no field for is refused.

    Args:
        what: the run, as the refusal names it (e.g. ``"a corpus run
            (--corpus/--corpus-file)"``).
        default: an instance of ``cls`` whose values are the defaults
            (``None``: ``cls``'s own).

    Raises:
        ValueError: a flag given has no field in ``cls``, or the values
            make an impossible configuration.
    """
    leaves = _leaf_fields(cls)
    given = given_fields(args)
    for name in sorted(given):
        if name not in leaves:
            flag = getattr(args, _GIVEN_FLAGS, {}).get(name, name)
            raise ValueError(
                f"{flag} has no effect on {what}; leave it out"
            )
    return _build_given(
        cls, {name: getattr(args, name) for name in given}, default
    )


def config_from_arguments(cls: type, args: argparse.Namespace) -> Any:
    """Build the dataclass ``cls`` (and the dataclasses nested in it)
    from parsed flags."""
    hints = typing.get_type_hints(cls)
    values = {}
    for item in dataclasses.fields(cls):
        kind = hints[item.name]
        kinds = item.metadata.get("kinds")
        if kinds is not None:
            kind = kinds[getattr(args, item.name)]
        values[item.name] = (
            config_from_arguments(kind, args)
            if dataclasses.is_dataclass(kind)
            else getattr(args, item.name)
        )
    return cls(**values)


def flags_in_message(text: str, *classes: type) -> str:
    """``text`` (a configuration's error) with the fields of ``classes``
    written as the flags a user types: ``luong_score='dot'`` as
    ``--luong-score dot``, ``input_feeding=True`` as ``--input-feeding``,
    a bare ``min_delta`` as ``--min-delta``.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Demo:
    ...     input_feeding: bool = False
    ...     attention: str = "luong"
    >>> flags_in_message(
    ...     "input_feeding=True needs attention='luong' "
    ...     "(--attention luong); drop input_feeding",
    ...     Demo,
    ... )
    '--input-feeding needs --attention luong; drop --input-feeding'
    """
    leaves: dict[str, dataclasses.Field] = {}
    for cls in classes:
        leaves.update(_leaf_fields(cls))
    if not leaves:
        return text
    names = "|".join(
        re.escape(name) for name in sorted(leaves, key=len, reverse=True)
    )

    def as_flag(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2)
        flag = flag_name(leaves[name])
        if value is None:
            return flag if "_" in name else name
        if value == "True":
            return flag
        if value == "False":
            return "--no-" + flag[2:]
        return f"{flag} {value.strip(chr(39))}"

    text = re.sub(rf"\b({names})\b(?:=('[^']*'|[\w.+-]+))?", as_flag, text)
    # "--attention luong (--attention luong)": the flag once
    return re.sub(r"(--[\w-]+(?: [\w.+-]+)?) \(\1\)", r"\1", text)
