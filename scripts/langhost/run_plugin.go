// RunPlugin for the Node.js language host that scripts/pulumi-engine builds from sdk/v3 v3.68.0.
//
// That host answers RunPlugin with "not supported", but recent engines (v3.206 and v3.248 at least) start a Node.js
// policy pack (`pulumi preview --policy-pack DIR`) through the language host's RunPlugin whenever a
// `pulumi-language-nodejs` is found, and never fall back to the `pulumi-analyzer-policy` launcher. So
// scripts/pulumi-engine compiles the host's package main with its RunPlugin removed and this file added:
// a policy pack (a dir with PulumiPolicy.yaml) runs through the launcher `pulumi-analyzer-policy` beside
// this executable, as Pulumi's releases ship it, in the pack's dir; its output and exit code stream back.
//
// The v3.68 proto predates RunPluginRequest.info (field 5, a ProgramInfo whose field 2 is the program
// directory), so the pack's dir is read from the request's unknown fields.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/encoding/protowire"
)

const (
	runPluginRequestInfoField   = 5
	programInfoProgramDirectory = 2
	policyAnalyzerLauncherName  = "pulumi-analyzer-policy"
	policyPackProjectFileName   = "PulumiPolicy.yaml"
)

func (host *nodeLanguageHost) RunPlugin(
	req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	dir := pluginProgramDirectory(req)
	if _, err := os.Stat(filepath.Join(dir, policyPackProjectFileName)); err != nil {
		return fmt.Errorf("this language host runs only policy packs as plugins; %s has no %s", dir, policyPackProjectFileName)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	launcher := filepath.Join(filepath.Dir(self), policyAnalyzerLauncherName)
	if _, err := os.Stat(launcher); err != nil {
		return fmt.Errorf("%s is missing beside %s: run scripts/pulumi-engine again", policyAnalyzerLauncherName, self)
	}

	cmd := exec.Command(launcher, append(append([]string{}, req.GetArgs()...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}

	// server.Send is not safe for concurrent use; both pipes go through one lock.
	var sendLock sync.Mutex
	send := func(response *pulumirpc.RunPluginResponse) error {
		sendLock.Lock()
		defer sendLock.Unlock()
		return server.Send(response)
	}
	var pumps sync.WaitGroup
	pump := func(from io.Reader, wrap func([]byte) *pulumirpc.RunPluginResponse) {
		defer pumps.Done()
		buffer := make([]byte, 32*1024)
		for {
			n, readErr := from.Read(buffer)
			if n > 0 {
				chunk := append([]byte{}, buffer[:n]...)
				if send(wrap(chunk)) != nil {
					return
				}
			}
			if readErr != nil {
				return
			}
		}
	}
	pumps.Add(2)
	go pump(stdout, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: b}}
	})
	go pump(stderr, func(b []byte) *pulumirpc.RunPluginResponse {
		return &pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: b}}
	})
	pumps.Wait()

	code := int32(0)
	if err := cmd.Wait(); err != nil {
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			return err
		}
		code = int32(exitErr.ExitCode())
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// pluginProgramDirectory is info.program_directory when the engine sent one, else the request's pwd.
func pluginProgramDirectory(req *pulumirpc.RunPluginRequest) string {
	if info, ok := bytesField(req.ProtoReflect().GetUnknown(), runPluginRequestInfoField); ok {
		if dir, ok := bytesField(info, programInfoProgramDirectory); ok && len(dir) > 0 {
			return string(dir)
		}
	}
	return req.GetPwd()
}

// bytesField is the value of the first length-delimited field `number` of a wire-encoded message.
func bytesField(message []byte, number protowire.Number) ([]byte, bool) {
	for len(message) > 0 {
		fieldNumber, kind, n := protowire.ConsumeTag(message)
		if n < 0 {
			return nil, false
		}
		message = message[n:]
		if fieldNumber == number && kind == protowire.BytesType {
			value, m := protowire.ConsumeBytes(message)
			return value, m >= 0
		}
		m := protowire.ConsumeFieldValue(fieldNumber, kind, message)
		if m < 0 {
			return nil, false
		}
		message = message[m:]
	}
	return nil, false
}
