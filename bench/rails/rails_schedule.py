"""The mgr module's schedule (src/osd_rails/mgr/rails/schedule.py), the one Python definition,
loaded by its path: importing it as part of the `rails` package would import the module's
ceph-mgr entry point, which exists only inside ceph-mgr."""
import importlib.util
import os
import sys

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "osd_rails", "mgr", "rails",
                     "schedule.py")
_spec = importlib.util.spec_from_file_location("rails_schedule_of_mgr", _PATH)
_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _module  # dataclasses look their module up here
_spec.loader.exec_module(_module)

Schedule = _module.Schedule
ScheduleParams = _module.ScheduleParams
