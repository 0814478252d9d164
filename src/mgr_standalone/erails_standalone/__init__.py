"""The rails and qbox controllers (src/mgr) run outside ceph-mgr, on librados, where ceph-mgr
cannot run Python modules (Debian 13's, doc/dev/ceph-abi.md). host.py gives a module the part of
ceph-mgr's module interface it uses; service.py runs one module; cli.py sends it commands."""
