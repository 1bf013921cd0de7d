"""Which pip extras are installed, so that a family whose packages are absent is skipped
(tests) or refused (runs) with the install line that fixes it, instead of failing on an ImportError.

An extra's requirements are read from the installed distribution's metadata (what `pip install -e ".[x]"`
recorded from pyproject.toml; a third-party family's own package for its extras); a family's `family.toml` names
its extra and the packages it installs apart (`pip install --no-deps`, for those whose own pins cannot be met,
e.g. nuscenes-devkit's numpy<2).
"""
from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Sequence

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from harness.family_manifest import installed_family

DISTRIBUTION = "iclr26-harness"


def declared_extras(distribution: str = DISTRIBUTION) -> tuple[str, ...]:
    """The extras the installed distribution declares, in its pyproject.toml's order."""
    return tuple(importlib.metadata.metadata(distribution).get_all("Provides-Extra") or ())


@functools.cache
def extra_requirements(extra: str, distribution: str = DISTRIBUTION) -> tuple[Requirement, ...]:
    """The requirements `extra` adds on this platform (a `; platform_system == 'Linux'` marker is evaluated);
    a ValueError naming the declared extras for an unknown one."""
    declared = declared_extras(distribution)
    if extra not in declared:
        raise ValueError(f"no extra '{extra}' is declared by {distribution}; declared: {', '.join(declared)}")
    requirements = [Requirement(line) for line in importlib.metadata.requires(distribution) or ()]
    return tuple(r for r in requirements if r.marker is not None and r.marker.evaluate({"extra": extra})
                 and not r.marker.evaluate({"extra": ""}))


def unmet(requirement: Requirement) -> str | None:
    """How `requirement` is not met here (its name when absent, the installed and wanted versions when it excludes
    the installed one), or None when it is met."""
    try:
        installed = importlib.metadata.version(requirement.name)
    except importlib.metadata.PackageNotFoundError:
        return requirement.name
    try:
        allowed = requirement.specifier.contains(Version(installed), prereleases=True)
    except InvalidVersion:
        allowed = True  # a local build's version string we cannot compare: its presence is what we can check
    return None if allowed else f"{requirement.name} {installed} where {requirement.specifier} is needed"


def missing_for(extra: str | None, installed_apart: Sequence[str] = (), distribution: str = DISTRIBUTION) -> list[str]:
    """Each requirement of `distribution`'s `extra` and of the packages installed apart that is not met here, said
    as `unmet` says it; empty when everything is installed."""
    requirements = list(extra_requirements(extra, distribution)) if extra else []
    for line in installed_apart:
        try:
            requirements.append(Requirement(line))
        except InvalidRequirement as exc:
            raise ValueError(f"'{line}' is not a pip requirement: {exc}") from None
    return [reason for reason in map(unmet, requirements) if reason is not None]


def install_hint(extra: str | None, installed_apart: Sequence[str] = (), distribution: str = DISTRIBUTION) -> str:
    """The commands that install what `missing_for` checks: the harness's extras as the README's Quick start
    installs it (editable, from the clone), another package's by its name."""
    target = f'-e ".[{extra}]"' if distribution == DISTRIBUTION else f'"{distribution}[{extra}]"'
    commands = [f"pip install {target}"] if extra else []
    commands += [f"pip install --no-deps {line}" for line in installed_apart]
    return " && ".join(commands)


def family_unavailable(family: str) -> str | None:
    """Why the installed family `family` cannot run here, with the install line that fixes it; None when its
    extra and the packages it installs apart are all installed (or it is no installed family: a plugin)."""
    installed = installed_family(family)
    if installed is None:
        return None
    manifest = installed.manifest
    missing = missing_for(manifest.extra, manifest.installed_apart, installed.distribution)
    if not missing:
        return None
    needs = " and ".join(filter(None, [f"the `{manifest.extra}` extra" if manifest.extra else "",
                                       ", ".join(manifest.installed_apart)]))
    return (f"family {family} needs {needs} (not met here: {', '.join(missing)}): "
            f"{install_hint(manifest.extra, manifest.installed_apart, installed.distribution)}")
