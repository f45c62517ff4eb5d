package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		readme := genv.GetEnvironmentFileOutput(ctx, genv.GetEnvironmentFileOutputArgs{
			EnvironmentId: pulumi.String(cfg.Require("environmentId")),
			Path:          pulumi.String("README.md"),
		})
		ctx.Export("content", readme.Content())
		ctx.Export("sizeBytes", readme.SizeBytes())
		return nil
	})
}
