#!/usr/bin/env python3
"""Tests of tools/check_includes.py on small trees with planted violations, under the real rule
book (docs/design.md) and under a small one of their own. Run by ctest (include_rules_checker)."""

import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_includes  # noqa: E402

REAL_RULES = os.path.join(HERE, "..", "docs", "design.md")

SMALL_RULES = """# notes

## The house: layers and what each may include

| Layer | Files | Holds | Includes |
|---|---|---|---|
| `base` (ground) | `src/base/**` | errors | nothing of vmafx |
| `metric` | `src/feature/*/**` | one folder each | `base` |
| `engine` | `src/engine/**` | the run | `base`, `metric` |
| `tests` | `*_test.cpp` | tests | `*` |

## Next section
"""


TREES = []  # removed at the end of the module's tests


def tearDownModule():
    for d in TREES:
        d.cleanup()


class Tree:
    """A temporary repository: files written from a {path: text} map."""

    def __init__(self, files, rules=SMALL_RULES):
        self.dir = tempfile.TemporaryDirectory()
        TREES.append(self.dir)
        self.root = self.dir.name
        files = dict(files)
        if rules is not None:
            files["docs/design.md"] = rules
        for path, text in files.items():
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(text)

    def check(self, rules=None):
        return check_includes.check(self.root, rules or os.path.join(self.root, "docs", "design.md"),
                                    ["src", "include", "tools"])

    def main(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = check_includes.main(["--root", self.root, *extra])
        return rc, out.getvalue(), err.getvalue()


CLEAN = {
    "src/base/error.hpp": "#pragma once\n",
    "src/feature/a/a.hpp": '#pragma once\n#include "base/error.hpp"\n#include <vector>\n',
    "src/feature/a/a.cpp": '#include "feature/a/a.hpp"\n#include "a.hpp"\n',
    "src/feature/b/b.hpp": "#pragma once\n",
    "src/engine/engine.cpp": '#include "feature/a/a.hpp"\n#include "feature/b/b.hpp"\n',
    "src/feature/a/a_test.cpp": '#include "engine/engine.cpp"\n#include "feature/b/b.hpp"\n',
}


class SmallRuleBook(unittest.TestCase):
    def test_clean_tree_passes(self):
        t = Tree(CLEAN)
        self.assertEqual(t.check(), [])
        rc, out, _ = t.main()
        self.assertEqual(rc, 0)
        self.assertIn("6 files follow the house's rules", out)

    def test_a_metric_including_another_metric_fails_naming_file_line_and_rule(self):
        t = Tree({**CLEAN, "src/feature/a/a.cpp": '#include "feature/a/a.hpp"\n\n#include "feature/b/b.hpp"\n'})
        problems = t.check()
        self.assertEqual(len(problems), 1, problems)
        self.assertTrue(problems[0].startswith('src/feature/a/a.cpp:3: #include "feature/b/b.hpp": `metric` folder a '
                                               "includes another `metric` folder, b"), problems[0])
        rc, out, err = t.main()
        self.assertEqual(rc, 1)
        self.assertIn("src/feature/a/a.cpp:3:", out)
        self.assertIn("1 include(s) break", err)

    def test_an_upward_include_fails_naming_both_layers(self):
        t = Tree({**CLEAN, "src/feature/b/b.hpp": '#pragma once\n#include "engine/engine.cpp"\n'})
        problems = t.check()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('src/feature/b/b.hpp:2: #include "engine/engine.cpp": layer `metric` may not include layer '
                      "`engine` (src/engine/engine.cpp); `metric` may include `base`", problems[0])

    def test_the_ground_floor_includes_nothing(self):
        t = Tree({**CLEAN, "src/base/error.hpp": '#include "feature/b/b.hpp"\n'})
        self.assertIn("layer `base` may not include layer `metric` (src/feature/b/b.hpp); `base` may include nothing "
                      "of vmafx", t.check()[0])

    def test_angle_brackets_do_not_hide_an_include(self):
        t = Tree({**CLEAN, "src/feature/b/b.hpp": "#include <feature/a/a.hpp>\n"})
        self.assertIn("src/feature/b/b.hpp:1: #include <feature/a/a.hpp>: `metric` folder b", t.check()[0])

    def test_a_file_in_no_layer_and_a_missing_file_fail(self):
        t = Tree({**CLEAN, "src/io/reader.cpp": "\n", "src/engine/run.cpp": '#include "engine/gone.hpp"\n'})
        problems = t.check()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn('src/engine/run.cpp:1: #include "engine/gone.hpp" names no file of the tree', problems[0])
        self.assertIn("src/io/reader.cpp:1: the file is in no layer of the table", problems[1])

    def test_only_a_bare_generated_spirv_include_may_name_no_file(self):
        t = Tree({**CLEAN, "src/feature/a/a_vulkan.cpp": '#include "a_vulkan.spv.inc"\n'})
        self.assertEqual(t.check(), [])
        t = Tree({**CLEAN, "src/feature/a/a_vulkan.cpp": '#include "x/a_vulkan.spv.inc"\n#include "a.inc"\n'})
        problems = t.check()
        self.assertEqual(len(problems), 2, problems)
        self.assertIn('#include "x/a_vulkan.spv.inc" names no file of the tree', problems[0])
        self.assertIn('#include "a.inc" names no file of the tree', problems[1])

    def test_a_row_naming_a_layer_below_it_is_refused(self):
        rules = SMALL_RULES.replace("| one folder each | `base` |", "| one folder each | `base`, `engine` |")
        t = Tree(CLEAN, rules)
        with self.assertRaises(check_includes.RulesError) as e:
            t.check()
        self.assertIn("`metric` may include `engine`, a layer listed below it", str(e.exception))
        self.assertEqual(t.main()[0], 2)

    def test_a_row_naming_no_layer_is_refused(self):
        t = Tree(CLEAN, SMALL_RULES.replace("`base`, `metric` |", "`base`, `metrics` |"))
        with self.assertRaisesRegex(check_includes.RulesError, "`metrics`, which is no layer of the table"):
            t.check()

    def test_a_missing_table_is_refused(self):
        t = Tree(CLEAN, "# nothing here\n")
        with self.assertRaisesRegex(check_includes.RulesError, "no heading"):
            t.check()


class RealRuleBook(unittest.TestCase):
    """docs/design.md's own table on planted trees: the house's three named rules."""

    FILES = {
        "src/base/error.hpp": "#pragma once\n",
        "src/picture/picture.hpp": '#include "base/error.hpp"\n',
        "src/feature/metric.hpp": '#include "picture/picture.hpp"\n',
        "src/feature/common/shared.hpp": '#include "feature/metric.hpp"\n',
        "src/feature/motion/motion_math.hpp": '#include "feature/common/shared.hpp"\n',
        "src/feature/float_motion/float_motion.cpp": '#include "feature/common/shared.hpp"\n',
        "src/gpu/twin.hpp": '#include "feature/metric.hpp"\n',
        "src/gpu/scheduler.hpp": '#include "gpu/twin.hpp"\n',
        "src/cuda/device.hpp": '#include "gpu/twin.hpp"\n',
        "src/feature/motion/motion_cuda.cu": '#include "cuda/device.hpp"\n#include "gpu/twin.hpp"\n',
        "src/engine/engine.hpp": '#include "feature/metric.hpp"\n#include "gpu/scheduler.hpp"\n',
        "src/output/writers.cpp": '#include "engine/engine.hpp"\n',
    }

    def check(self, **planted):
        return Tree({**self.FILES, **planted}, rules=None).check(REAL_RULES)

    def test_the_planted_tree_is_clean(self):
        self.assertEqual(self.check(), [])

    def test_device_plumbing_knows_no_metric(self):
        for plumbing in ("src/cuda/plant.cu", "src/vulkan/plant.cpp"):
            problems = self.check(**{plumbing: '#include "feature/motion/motion_math.hpp"\n'})
            self.assertEqual(len(problems), 1, problems)
            self.assertIn(f"{plumbing}:1: #include \"feature/motion/motion_math.hpp\": layer `device` may not include "
                          "layer `metric`", problems[0])

    def test_metrics_know_no_engine(self):
        problems = self.check(**{"src/feature/motion/motion_math.hpp": '#include "engine/engine.hpp"\n'})
        self.assertIn("layer `metric` may not include layer `engine`", problems[0])

    def test_the_engine_knows_no_backend_and_no_metric_the_gpu_pipeline(self):
        problems = self.check(**{"src/engine/engine.cpp": '#include "cuda/device.hpp"\n'})
        self.assertIn("layer `engine` may not include layer `device`", problems[0])
        problems = self.check(**{"src/feature/motion/motion_cuda.cu": '#include "gpu/scheduler.hpp"\n'})
        self.assertIn("layer `metric` may not include layer `scheduler`", problems[0])
        problems = self.check(**{"src/cuda/device.hpp": '#include "gpu/scheduler.hpp"\n'})
        self.assertIn("layer `device` may not include layer `scheduler`", problems[0])

    def test_a_metric_folder_includes_only_itself_and_common(self):
        problems = self.check(**{"src/feature/float_motion/float_motion.cpp": '#include "feature/motion/motion_math.hpp"\n'})
        self.assertIn("`metric` folder float_motion includes another `metric` folder, motion", problems[0])

    def test_common_includes_no_metric(self):
        problems = self.check(**{"src/feature/common/shared.hpp": '#include "feature/motion/motion_math.hpp"\n'})
        self.assertIn("layer `common` may not include layer `metric`", problems[0])

    def test_the_writers_know_no_registry(self):
        problems = self.check(**{"src/feature/registry.hpp": '#include "feature/metric.hpp"\n',
                                 "src/output/writers.cpp": '#include "feature/registry.hpp"\n'})
        self.assertIn("layer `output` may not include layer `registry`", problems[0])


if __name__ == "__main__":
    unittest.main()
