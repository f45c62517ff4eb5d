package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		onDemand := genv.GetEnvironmentsOutput(ctx, genv.GetEnvironmentsOutputArgs{Mode: genv.EnvironmentModeOnDemand})
		ctx.Export("environments", onDemand.Environments())
		return nil
	})
}
