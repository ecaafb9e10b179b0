package rawdoc

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// jsonParser is a strict recursive-descent JSON parser that records lines,
// rejects duplicate object keys and trailing data, and bounds nesting depth.
type jsonParser struct {
	data  []byte
	pos   int
	line  int
	depth int
	lim   Limits
}

func parseJSON(data []byte, lim Limits) (*Value, error) {
	p := &jsonParser{data: data, line: 1, lim: lim}
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.errf("empty document")
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos < len(p.data) {
		return nil, p.errf("trailing garbage after the document: %q", p.snippet())
	}
	return v, nil
}

func (p *jsonParser) errf(format string, args ...any) error {
	return &SyntaxError{Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

func (p *jsonParser) snippet() string {
	end := p.pos + 12
	if end > len(p.data) {
		end = len(p.data)
	}
	return string(p.data[p.pos:end])
}

func (p *jsonParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.pos++
	}
}

func (p *jsonParser) value() (*Value, error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return nil, p.errf("unexpected end of input")
	}
	line := p.line
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.list()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &Value{Kind: String, Str: s, Line: line}, nil
	case c == 't':
		if err := p.literal("true"); err != nil {
			return nil, err
		}
		return &Value{Kind: Bool, Bool: true, Line: line}, nil
	case c == 'f':
		if err := p.literal("false"); err != nil {
			return nil, err
		}
		return &Value{Kind: Bool, Line: line}, nil
	case c == 'n':
		if err := p.literal("null"); err != nil {
			return nil, err
		}
		return &Value{Kind: Null, Line: line}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errf("unexpected character %q", c)
	}
}

func (p *jsonParser) literal(word string) error {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return p.errf("invalid literal %q", p.snippet())
	}
	p.pos += len(word)
	return nil
}

func (p *jsonParser) enter() error {
	p.depth++
	if p.depth > p.lim.MaxDepth {
		return p.errf("nesting depth over the limit of %d", p.lim.MaxDepth)
	}
	return nil
}

func (p *jsonParser) object() (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	v := &Value{Kind: Object, Line: p.line}
	p.pos++ // '{'
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return v, nil
	}
	seen := make(map[string]bool)
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errf("expected a string key in object")
		}
		line := p.line
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		dup := seen[key]
		seen[key] = true
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errf("expected ':' after key %q", key)
		}
		p.pos++
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		if dup {
			v.Dups = append(v.Dups, Field{Key: key, Line: line, Val: val})
		} else {
			v.Fields = append(v.Fields, Field{Key: key, Line: line, Val: val})
		}
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			p.depth--
			return v, nil
		default:
			return nil, p.errf("expected ',' or '}' in object, found %q", p.data[p.pos])
		}
	}
}

func (p *jsonParser) list() (*Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	v := &Value{Kind: List, Line: p.line}
	p.pos++ // '['
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return v, nil
	}
	for {
		e, err := p.value()
		if err != nil {
			return nil, err
		}
		v.List = append(v.List, e)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.errf("unexpected end of input in list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			p.depth--
			return v, nil
		default:
			return nil, p.errf("expected ',' or ']' in list, found %q", p.data[p.pos])
		}
	}
}

func (p *jsonParser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	escaped := false
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.data[start:p.pos]
			if !escaped {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.errf("invalid string: %v", err)
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.errf("control character in string")
		default:
			p.pos++
		}
	}
	return "", p.errf("unterminated string")
}

func (p *jsonParser) number() (*Value, error) {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	text := string(p.data[start:p.pos])
	if !json.Valid(p.data[start:p.pos]) {
		return nil, p.errf("invalid number %q", text)
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, p.errf("invalid number %q", text)
	}
	return &Value{Kind: Number, Num: f, Line: p.line}, nil
}
