// Package testenv stands for the module's test support.
package testenv
