"""ci/tidy_cached.py: what makes a file's clang-tidy input the same, so a pass is reused."""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("tidy_cached", os.path.join(HERE, "..", "tidy_cached.py"))
tidy_cached = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tidy_cached)


def key_of(tmp_path, root, flags):
    src = tmp_path / root
    (src / "include").mkdir(parents=True, exist_ok=True)
    (src / "a.cpp").write_text('#include "a.hpp"\nint f() { return k; }\n')
    (src / "include" / "a.hpp").write_text("constexpr int k = 1;\n")
    entry = {"directory": str(src), "file": "a.cpp", "command": f"c++ {flags} -I{src}/include -c a.cpp -o a.o"}
    return tidy_cached.input_key(entry, "tool 14", "Checks: -*", "", [str(src), str(src / "build")])


def test_flags_that_only_make_warnings_errors_leave_the_input_as_it_was(tmp_path):
    plain = key_of(tmp_path, "one", "-O3 -Wall")
    assert key_of(tmp_path, "two", "-O3 -Wall -Werror") == plain  # another checkout, built with -Werror
    assert key_of(tmp_path, "three", "-O3 -Wall -Werror=format -Wno-error=unused") == plain


def test_any_other_flag_changes_the_input(tmp_path):
    assert key_of(tmp_path, "one", "-O3 -Wall") != key_of(tmp_path, "two", "-O2 -Wall")
    assert key_of(tmp_path, "one", "-O3 -Wall") != key_of(tmp_path, "three", "-O3 -Wall -DX=1")
