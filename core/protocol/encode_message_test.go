package protocol

import (
	"fmt"
	"slices"
)

// EncodeMessage encodes a parsed message again, from its typed Value when it has one.
func EncodeMessage(m *Message) ([]byte, error) {
	switch m.Kind {
	case KindRequest, KindNotification:
		var params any = m.Params
		if m.Value != nil {
			params = m.Value
		}
		if m.Kind == KindRequest {
			return NewRequest(m.ID, m.Method, params)
		}
		return NewNotification(m.Method, params)
	case KindResponse:
		if m.Error != nil {
			return NewErrorResponse(m.ID, m.Error)
		}
		var result any = m.Result
		if m.Value != nil {
			result = m.Value
		}
		if m.Attachment != nil {
			return NewResult(m.ID, WithAttachment{Result: result, Data: m.Attachment})
		}
		return NewResult(m.ID, result)
	}
	return nil, fmt.Errorf("encode message: unknown kind %v", m.Kind)
}

// NewResult is NewResultParts joined: the payload of a success response.
func NewResult(id uint64, result any) ([]byte, error) {
	text, attachment, err := NewResultParts(id, result)
	if err != nil || len(attachment) == 0 {
		return text, err
	}
	return append(slices.Grow(text, len(attachment)), attachment...), nil
}
