package main

import (
	genv "github.com/gemini-environments/pulumi-gemini-environments/sdk/go/geminienvironments"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		ctx.Export("credentials", genv.GetCredentialsOutput(ctx).Credentials())
		return nil
	})
}
