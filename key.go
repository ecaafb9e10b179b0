package arbor

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Key is a typed handle to a blackboard entry. It is resolved once, when it
// is created, to an integer slot, so reads and writes through it are array
// accesses: no maps, no boxing. Keys whose name begins with "@" address the
// global scope.
//
// T may be bool, string, any Go integer or float type (stored as a float64
// number; an integer handle reads a number only when it is exactly
// representable), any (reads whatever is stored), or any other type (stored
// as is, read back by type assertion).
//
// A Key is an immutable value, safe to share between goroutines; what it
// reads and writes, a Blackboard, is not. The zero Key is the handle of
// the key named "" (which no tree file can name): make Keys with NewKey.
type Key[T any] struct {
	id    int32
	flags keyFlags
	conv  conv
	// Four fields at most: Go keeps such a struct in registers.
	missing *MissingError // Get's error for an absent key; holds the name
}

// keyFlags are a Key's properties.
type keyFlags uint8

const (
	keyGlobal keyFlags = 1 << iota // the key addresses the global scope
	// keyFast: Set may take its fast path (an agent-scope key of a number
	// or boolean type: conv is convFloat64 or convBool).
	keyFast
)

// global reports whether the key addresses the global scope.
func (k Key[T]) global() bool { return k.flags&keyGlobal != 0 }

// conv is how a Key's type maps to blackboard values, decided once by
// NewKey so that reads and writes need no interface conversion.
type conv uint8

const (
	convGeneric conv = iota // through ValueOf / convertTo
	convFloat64
	convBool
	convString
	convInt
	convInt64
	convInt32
)

func convFor[T any]() conv {
	t := reflect.TypeOf((*T)(nil)).Elem()
	switch t.Kind() {
	case reflect.Float64:
		return convFloat64
	case reflect.Bool:
		return convBool
	case reflect.String:
		return convString
	case reflect.Int:
		return convInt
	case reflect.Int64:
		if t == reflect.TypeOf(time.Duration(0)) {
			return convGeneric
		}
		return convInt64
	case reflect.Int32:
		return convInt32
	}
	return convGeneric
}

// NewKey returns the handle for the blackboard key name. Handles are cheap
// values; create them once (package variables are typical) and reuse them.
func NewKey[T any](name string) Key[T] {
	k := Key[T]{id: internKey(name), conv: convFor[T](), missing: &MissingError{Key: name}}
	if isGlobalName(name) {
		k.flags = keyGlobal
	} else if k.conv == convFloat64 || k.conv == convBool {
		k.flags = keyFast
	}
	return k
}

// Name returns the key's name.
func (k Key[T]) Name() string {
	if k.missing == nil {
		return ""
	}
	return k.missing.Key
}

// ErrMissing is returned when a key is absent or has expired. Key.Get
// returns a *MissingError naming the key, which matches ErrMissing with
// errors.Is.
var ErrMissing = errors.New("blackboard key is missing")

// MissingError is Key.Get's error for an absent or expired key. Each Key
// holds its own, so a missing read allocates nothing.
type MissingError struct {
	Key string // the key's name
}

// Error names the missing key.
func (e *MissingError) Error() string { return fmt.Sprintf("blackboard key %q is missing", e.Key) }

// Is makes errors.Is(err, ErrMissing) hold.
func (e *MissingError) Is(target error) bool { return target == ErrMissing }

// TypeError reports a read through a handle of another type than the value
// stored.
type TypeError struct {
	Key  string // the key's name
	Want string // the handle's type
	Got  Kind   // the stored value's kind
	Val  Value  // the stored value
}

// Error names the key, the value held and the type the handle reads.
func (e *TypeError) Error() string {
	return fmt.Sprintf("blackboard key %q holds a %s (%s), not the %s the handle reads", e.Key, e.Got, e.Val, e.Want)
}

// Get reads the value. When the key is absent or expired it returns the
// zero T and a *MissingError naming the key (errors.Is(err, ErrMissing)
// holds); when the stored value does not have type T (or, for an integer
// T, is not an integer it can hold exactly), the zero T and a *TypeError.
func (k Key[T]) Get(bb *Blackboard) (T, error) {
	var out T
	// Fast path, as Set's: a number or boolean key (keyFast) of the tree
	// whose slot holds a present value of T's kind. T's underlying type is
	// then float64 or bool (told apart by its size), which out is written
	// as. Anything else (absent, expired, another kind, a key the tree does
	// not mention) takes the general path, which reports it.
	if k.flags&keyFast != 0 {
		if s := bb.treeSlot(k.id); s != nil {
			if unsafe.Sizeof(out) == unsafe.Sizeof(float64(0)) {
				if s.kind == KindNumber && (!s.ttl || bb.now <= s.exp) {
					*(*float64)(unsafe.Pointer(&out)) = s.num
					return out, nil
				}
			} else if s.kind == KindBool && (!s.ttl || bb.now <= s.exp) {
				*(*bool)(unsafe.Pointer(&out)) = s.num != 0
				return out, nil
			}
		}
	}
	return k.get(bb) // kept apart, so that the fast path needs no spills
}

// get is Get's general path.
func (k Key[T]) get(bb *Blackboard) (T, error) {
	var out T
	s := bb.get(k.id, k.global())
	if s == nil {
		if k.missing != nil {
			return out, k.missing
		}
		return out, ErrMissing
	}
	if k.conv != convGeneric {
		if s.readInto(k.conv, unsafe.Pointer(&out)) {
			return out, nil
		}
	} else if convertTo(s.value(), &out) {
		return out, nil
	}
	return out, &TypeError{Key: k.Name(), Want: fmt.Sprintf("%T", out), Got: s.kind, Val: s.value()}
}

// Has reports whether the key is present (and not expired).
func (k Key[T]) Has(bb *Blackboard) bool {
	// Fast path: an agent-scope key of the tree, whatever T.
	if k.flags&keyGlobal == 0 {
		if s := bb.treeSlot(k.id); s != nil {
			return bb.present(s) != nil
		}
	}
	return bb.get(k.id, k.global()) != nil
}

// Set writes the value with no expiry.
func (k Key[T]) Set(bb *Blackboard, v T) {
	// Fast path: an agent-scope number or boolean key (keyFast) of the
	// tree, whose slot slotOf gives (-1 for other keys fails the second
	// test). T's underlying type is then float64 or bool, which its size
	// tells apart: a constant for each of the compiler's instantiations.
	// The lookup is treeSlot's, written out: testing treeSlot's result
	// again cost about 6 instructions a call. (With the call to set, Set
	// is well over the inliner's budget: it is not inlined.)
	if k.flags&keyFast != 0 {
		slotOf, id := bb.keys.slotOf, int(k.id)
		if uint(id) < uint(len(slotOf)) {
			local, j := bb.local, int(slotOf[id])
			if uint(j) < uint(len(local)) {
				s := &local[j]
				if unsafe.Sizeof(v) == unsafe.Sizeof(float64(0)) {
					s.kind, s.ttl = KindNumber, false
					s.num = *(*float64)(unsafe.Pointer(&v))
				} else {
					s.kind, s.ttl = KindBool, false
					s.num = float64(*(*uint8)(unsafe.Pointer(&v)))
				}
				if s.ref != nil {
					s.dropRef()
				}
				return
			}
		}
	}
	k.set(bb, v)
}

// set is Set's general path.
func (k Key[T]) set(bb *Blackboard, v T) {
	s := bb.slot(k.id, k.global())
	if k.conv != convGeneric {
		s.writeFrom(k.conv, unsafe.Pointer(&v))
	} else {
		s.set(ValueOf(any(v)))
	}
	s.ttl = false
}

// SetTTL writes the value so that it is present while now ≤ t + ttl, where t
// is the agent's current time.
func (k Key[T]) SetTTL(bb *Blackboard, v T, ttl time.Duration) {
	k.Set(bb, v)
	s := bb.slot(k.id, k.global())
	s.ttl, s.exp = true, expiry(bb.now, int64(ttl))
}

// readInto stores the slot's value in *p, a Go value of the type conv c
// stands for, when the kinds match (and integers are exact).
func (s *slot) readInto(c conv, p unsafe.Pointer) bool {
	switch c {
	case convFloat64:
		if s.kind == KindNumber {
			*(*float64)(p) = s.num
			return true
		}
	case convBool:
		if s.kind == KindBool {
			*(*bool)(p) = s.num != 0
			return true
		}
	case convString:
		if s.kind == KindString {
			*(*string)(p), _ = s.ref.(string)
			return true
		}
	case convInt:
		if s.kind == KindNumber && exactInt(s.num, math.MinInt, math.MaxInt) {
			*(*int)(p) = int(s.num)
			return true
		}
	case convInt64:
		if s.kind == KindNumber && exactInt(s.num, math.MinInt64, math.MaxInt64) {
			*(*int64)(p) = int64(s.num)
			return true
		}
	case convInt32:
		if s.kind == KindNumber && exactInt(s.num, math.MinInt32, math.MaxInt32) {
			*(*int32)(p) = int32(s.num)
			return true
		}
	}
	return false
}

// writeFrom stores *p, a Go value of the type conv c stands for.
func (s *slot) writeFrom(c conv, p unsafe.Pointer) {
	switch c {
	case convFloat64:
		s.setNum(*(*float64)(p))
	case convBool:
		b := 0.0
		if *(*bool)(p) {
			b = 1
		}
		s.setScalar(KindBool, b)
	case convString:
		s.set(String(*(*string)(p)))
	case convInt:
		s.setNum(float64(*(*int)(p)))
	case convInt64:
		s.setNum(float64(*(*int64)(p)))
	case convInt32:
		s.setNum(float64(*(*int32)(p)))
	}
}

// Delete removes the key.
func (k Key[T]) Delete(bb *Blackboard) { bb.store(k.id, k.global(), Value{}, false, 0) }

// convertTo stores v in *out when v has (or, for numbers, exactly fits) the
// type of *out.
func convertTo[T any](v Value, out *T) bool {
	switch p := any(out).(type) {
	case *float64:
		if v.kind == KindNumber {
			*p = v.num
			return true
		}
	case *bool:
		if v.kind == KindBool {
			*p = v.num != 0
			return true
		}
	case *string:
		if v.kind == KindString {
			*p = v.str()
			return true
		}
	case *int:
		if v.kind == KindNumber && exactInt(v.num, math.MinInt64, math.MaxInt64) {
			*p = int(v.num)
			return true
		}
	case *int64:
		if v.kind == KindNumber && exactInt(v.num, math.MinInt64, math.MaxInt64) {
			*p = int64(v.num)
			return true
		}
	case *int32:
		if v.kind == KindNumber && exactInt(v.num, math.MinInt32, math.MaxInt32) {
			*p = int32(v.num)
			return true
		}
	case *int16:
		if v.kind == KindNumber && exactInt(v.num, math.MinInt16, math.MaxInt16) {
			*p = int16(v.num)
			return true
		}
	case *int8:
		if v.kind == KindNumber && exactInt(v.num, math.MinInt8, math.MaxInt8) {
			*p = int8(v.num)
			return true
		}
	case *uint:
		if v.kind == KindNumber && exactInt(v.num, 0, math.MaxUint64) {
			*p = uint(v.num)
			return true
		}
	case *uint64:
		if v.kind == KindNumber && exactInt(v.num, 0, math.MaxUint64) {
			*p = uint64(v.num)
			return true
		}
	case *uint32:
		if v.kind == KindNumber && exactInt(v.num, 0, math.MaxUint32) {
			*p = uint32(v.num)
			return true
		}
	case *uint16:
		if v.kind == KindNumber && exactInt(v.num, 0, math.MaxUint16) {
			*p = uint16(v.num)
			return true
		}
	case *uint8:
		if v.kind == KindNumber && exactInt(v.num, 0, math.MaxUint8) {
			*p = uint8(v.num)
			return true
		}
	case *float32:
		if v.kind == KindNumber && float64(float32(v.num)) == v.num {
			*p = float32(v.num)
			return true
		}
	case *any:
		*p = v.Interface()
		return true
	case *Value:
		*p = v
		return true
	default:
		if v.kind == KindOther {
			if t, ok := v.ref.(T); ok {
				*out = t
				return true
			}
		}
		// Named types of the kinds above (time.Duration, type HP float64).
		return setKind(reflect.ValueOf(out).Elem(), v)
	}
	return false
}

// setKind stores v in fv, a settable value of a boolean, string, integer
// or float kind (a named type, say), when v has that kind and, for
// numbers, fits exactly. It reports whether it did.
func setKind(fv reflect.Value, v Value) bool {
	switch fv.Kind() {
	case reflect.String:
		if s, ok := v.Str(); ok {
			fv.SetString(s)
			return true
		}
	case reflect.Bool:
		if b, ok := v.Bool(); ok {
			fv.SetBool(b)
			return true
		}
	case reflect.Float64:
		if f, ok := v.Number(); ok {
			fv.SetFloat(f)
			return true
		}
	case reflect.Float32:
		if f, ok := v.Number(); ok && float64(float32(f)) == f {
			fv.SetFloat(f)
			return true
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f, ok := v.Number(); ok && exactInt(f, math.MinInt64, math.MaxInt64) && !fv.OverflowInt(int64(f)) {
			fv.SetInt(int64(f))
			return true
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if f, ok := v.Number(); ok && exactInt(f, 0, math.MaxUint64) && !fv.OverflowUint(uint64(f)) {
			fv.SetUint(uint64(f))
			return true
		}
	}
	return false
}

// isGlobalName reports whether a key name addresses the global scope.
func isGlobalName(name string) bool { return strings.HasPrefix(name, "@") }

// The process-wide key table maps key names to dense integer ids. Reads are
// lock-free; interning a new name takes a lock and costs O(1) amortized.
var keyTable struct {
	mu     sync.Mutex
	byName sync.Map // string → int32
	names  atomic.Pointer[[]string]
}

// internKey returns the id of name, assigning the next id on first use.
func internKey(name string) int32 {
	if id, ok := keyTable.byName.Load(name); ok {
		return id.(int32)
	}
	keyTable.mu.Lock()
	defer keyTable.mu.Unlock()
	if id, ok := keyTable.byName.Load(name); ok {
		return id.(int32)
	}
	var names []string
	if p := keyTable.names.Load(); p != nil {
		names = *p
	}
	if len(names) == 0 {
		// Id 0 is the empty name: the zero Key addresses it, rather than
		// whichever key the process happened to intern first.
		names = append(names, "")
		keyTable.byName.Store("", int32(0))
		if name == "" {
			keyTable.names.Store(&names)
			return 0
		}
	}
	id := int32(len(names))
	// Appending in place is safe: readers never look past their length.
	names = append(names, name)
	keyTable.names.Store(&names)
	keyTable.byName.Store(name, id)
	return id
}

// keyName returns the name of an interned key id.
func keyName(id int32) string {
	return (*keyTable.names.Load())[id]
}
