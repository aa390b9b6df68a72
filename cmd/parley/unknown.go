package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// strictSubcommands makes every command with subcommands refuse an
// unknown one: an error naming it, the nearest command when one is close
// ("did you mean"), and a non-zero exit. Cobra alone prints the usage and
// exits 0 for `parley skills add`, and suggests nothing for `parley
// doctr`, since the root takes no arguments. Every such command takes no
// positional arguments of its own, so any that reaches it is a mistake.
func strictSubcommands(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictSubcommands(sub)
	}
	if !c.HasSubCommands() {
		return
	}
	validate := c.Args
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownCommand(cmd, args[0])
		}
		if validate != nil {
			return validate(cmd, args)
		}
		return nil
	}
	if !c.Runnable() {
		// Runnable, so cobra checks the arguments instead of printing help.
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
}

// unknownCommand is the error for name given to cmd.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, set only on its path
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		return fmt.Errorf("%s; did you mean %s? (%s --help lists the commands)", msg, strings.Join(s, " or "), cmd.CommandPath())
	}
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return fmt.Errorf("%s; the commands are %s (%s --help says more)", msg, strings.Join(names, ", "), cmd.CommandPath())
}
