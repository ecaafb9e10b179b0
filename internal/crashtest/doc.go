// Package crashtest holds the crash-recovery tests of snapshots, which run
// child processes (the test binary re-executed with an environment
// variable): a child ticks a manager and writes periodic snapshots to a
// file with an atomic rename; the test kills it with SIGKILL at a random
// moment, restores from the file and checks that nothing was lost or torn
// and that the restored manager continues exactly like an uninterrupted
// one — with the child's key table laid out like the test's, and with a
// child that interned other keys first. Another child snapshots an agent
// in a process that has no blackboard keys. The package has no code of its
// own.
package crashtest
