package btcpp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// element is one parsed XML element with the line its start tag is on.
type element struct {
	name  string
	attrs []xml.Attr
	kids  []*element
	text  string // character data directly inside, trimmed
	line  int
}

// attr returns an attribute's value and whether it is present.
func (e *element) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// lineIndex maps byte offsets to 1-based line numbers.
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	var idx lineIndex
	for i, b := range data {
		if b == '\n' {
			idx = append(idx, i)
		}
	}
	return idx
}

func (l lineIndex) line(off int64) int {
	return sort.Search(len(l), func(i int) bool { return int64(l[i]) >= off }) + 1
}

// parseXML reads one XML document into elements. It refuses DTDs, text
// outside the root element, a second root element and tree nodes nested
// deeper than maxDepth (elements deeper than maxDepth+2: <root> and
// <BehaviorTree> hold the nodes); errors carry line numbers.
func parseXML(data []byte, maxDepth int) (root *element, err error) {
	defer func() {
		// encoding/xml is not expected to panic, but the input is untrusted.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("invalid XML: %v", r)
		}
	}()
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		data = data[3:] // a UTF-8 byte order mark
	}
	lines := newLineIndex(data)
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []*element
	var text []*strings.Builder
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("line %d: XML syntax error: %s", se.Line, se.Msg)
			}
			return nil, fmt.Errorf("line %d: XML error: %v", lines.line(d.InputOffset()), err)
		}
		line := lines.line(off)
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != "" {
				return nil, fmt.Errorf("line %d: namespaced element <%s:%s> is not supported", line, t.Name.Space, t.Name.Local)
			}
			if len(stack) == 0 && root != nil {
				return nil, fmt.Errorf("line %d: a second top-level element <%s> (the document has one <root>)", line, t.Name.Local)
			}
			if a := repeatedAttr(t.Attr); a != "" {
				return nil, fmt.Errorf("line %d: <%s>: attribute %q is given twice (XML allows an attribute once per element)", line, t.Name.Local, a)
			}
			if len(stack) >= maxDepth+2 {
				return nil, fmt.Errorf("line %d: <%s>: nodes nested deeper than %d", line, t.Name.Local, maxDepth)
			}
			e := &element{name: t.Name.Local, attrs: t.Attr, line: line}
			if len(stack) == 0 {
				root = e
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, e)
			}
			stack = append(stack, e)
			text = append(text, &strings.Builder{})
		case xml.EndElement:
			e := stack[len(stack)-1]
			e.text = strings.TrimSpace(text[len(text)-1].String())
			stack = stack[:len(stack)-1]
			text = text[:len(text)-1]
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) > 0 {
					return nil, fmt.Errorf("line %d: text outside the <root> element (is this an XML file?)", line)
				}
				continue
			}
			if b := text[len(text)-1]; b.Len() < 1<<16 {
				b.Write(t)
			}
		case xml.Directive:
			return nil, fmt.Errorf("line %d: XML directives (<!DOCTYPE ...>) are not supported", line)
		case xml.Comment, xml.ProcInst:
		}
	}
	if root == nil {
		return nil, fmt.Errorf("empty document: no <root> element")
	}
	return root, nil
}

// repeatedAttr returns the name of an attribute given twice, or "".
func repeatedAttr(attrs []xml.Attr) string {
	if len(attrs) < 2 {
		return ""
	}
	seen := make(map[xml.Name]bool, len(attrs))
	for _, a := range attrs {
		if seen[a.Name] {
			if a.Name.Space != "" {
				return a.Name.Space + ":" + a.Name.Local
			}
			return a.Name.Local
		}
		seen[a.Name] = true
	}
	return ""
}
