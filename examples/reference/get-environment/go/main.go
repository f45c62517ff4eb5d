package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		base, err := genv.LookupEnvironment(ctx, &genv.LookupEnvironmentArgs{Id: cfg.Require("environmentId")})
		if err != nil {
			return err
		}
		ctx.Export("status", pulumi.String(base.Status))
		ctx.Export("fileCount", pulumi.Int(base.FileCount))
		return nil
	})
}
