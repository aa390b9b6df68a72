package rowdata

import (
	"strings"
	"testing"
)

func TestRevokePrefix(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"", "", true},
		{"0123456789ab", "0123456789ab", true},
		{"0123456789ABCDEF", "0123456789abcdef", true},
		{strings.Repeat("f", 64), strings.Repeat("f", 64), true},
		{"0123456789a", "", false},
		{"0123456789a%", "", false},
		{"____________", "", false},
		{"0123456789ab*", "", false},
		{"0123456789ag", "", false},
		{"０１２３４５６７８９ab", "", false},
	} {
		got, err := RevokePrefix(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("RevokePrefix(%q) = %q, %v; want %q, ok %t", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestAuditAction(t *testing.T) {
	for _, tt := range []struct {
		in, lo, hi string
		prefix     bool
	}{
		{"approval.approve", "approval.approve", "", false},
		{"approval", "approval", "", false},
		{"approval.", "approval.", "approval/", true},
		{"50%.", "50%.", "50%/", true},
		{".", ".", "/", true},
	} {
		lo, hi, prefix := AuditAction(tt.in)
		if lo != tt.lo || hi != tt.hi || prefix != tt.prefix {
			t.Errorf("AuditAction(%q) = %q, %q, %t; want %q, %q, %t", tt.in, lo, hi, prefix, tt.lo, tt.hi, tt.prefix)
		}
	}
	for _, limit := range []int{0, -1, 1001} {
		if AuditLimit(limit) == nil {
			t.Errorf("AuditLimit(%d) = nil, want an error", limit)
		}
	}
	for _, limit := range []int{1, 1000} {
		if err := AuditLimit(limit); err != nil {
			t.Errorf("AuditLimit(%d) = %v", limit, err)
		}
	}
}
