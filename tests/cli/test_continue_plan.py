"""Which file ``-C`` continues (:func:`anyurl.downloads.output.plan_target`): the ``.part`` of an
interrupted run, else the final file in place, never a link at a remote name."""

from __future__ import annotations

from pathlib import Path

from anyurl.downloads.output import Placement, plan_target


def test_resume_continues_the_final_file_when_there_is_no_part(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"x" * 10)
    for named in (True, False):
        plan = plan_target(target, named_by_user=named, clobber=None, resume=True)
        assert (plan.placement, plan.path) == (Placement.CONTINUE, target)
    assert plan_target(target, named_by_user=True, clobber=None).placement \
        is Placement.PART_AND_RENAME  # without -C: replaced via the .part


def test_a_part_file_wins_and_an_empty_file_starts_over(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"x" * 10)
    (tmp_path / "f.bin.part").write_bytes(b"")
    plan = plan_target(target, named_by_user=True, clobber=None, resume=True)
    assert plan.placement is Placement.PART_AND_RENAME
    (tmp_path / "f.bin.part").unlink()
    target.write_bytes(b"")
    plan = plan_target(target, named_by_user=True, clobber=None, resume=True)
    assert plan.placement is Placement.PART_AND_RENAME


def test_a_link_at_a_remote_name_is_never_continued_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "f.bin").symlink_to(victim)
    plan = plan_target(out / "f.bin", named_by_user=False, clobber=None, resume=True)
    assert plan.placement is Placement.PART_AND_RENAME  # the link is replaced, not followed
    # a link the user named is followed, as curl follows it: the file behind it continues
    plan = plan_target(out / "f.bin", named_by_user=True, clobber=None, resume=True)
    assert (plan.placement, plan.path) == (Placement.CONTINUE, victim)
