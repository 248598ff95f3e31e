// Package frame keeps every rule.
package frame
