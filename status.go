package arbor

// Status is the result of ticking a node.
type Status uint8

// The statuses a node returns. The zero value, Invalid, is never a node's
// result; it marks "no status" (an idle node, a node not visited), and
// Agent.Tick returns it only when the agent has no result to give: a zero
// Agent, or a paused agent not ticked since it was made, reset or moved to
// another tree.
const (
	Invalid Status = iota
	Success
	Failure
	Running
)

// String returns "success", "failure", "running" or "invalid".
func (s Status) String() string {
	switch s {
	case Success:
		return "success"
	case Failure:
		return "failure"
	case Running:
		return "running"
	}
	return "invalid"
}

// ParseStatus parses "success", "failure" or "running".
func ParseStatus(s string) (Status, bool) {
	switch s {
	case "success":
		return Success, true
	case "failure":
		return Failure, true
	case "running":
		return Running, true
	}
	return Invalid, false
}

// statusOf maps a boolean to Success or Failure.
func statusOf(ok bool) Status {
	if ok {
		return Success
	}
	return Failure
}
