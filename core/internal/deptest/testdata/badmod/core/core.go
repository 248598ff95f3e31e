// Package core is the facade the owner layer must not import.
package core
