# OpenWorker: remove the Windows sandbox setup. Rendered by OpenWorker from setup.json;
# it undoes what that record lists and nothing else.
$ErrorActionPreference = 'Continue'
$Log = 'C:\Users\ada\AppData\Local\Temp\ow-setup\setup.log'
$Root = 'C:\ProgramData\OpenWorker\sandbox'
$Helper = 'C:\Program Files\OpenWorker\O''Brien ‘‘tools’’\openworker-winsandbox.exe'
$userlist = 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon\SpecialAccounts\UserList'
Start-Transcript -Path $Log -Force | Out-Null
Remove-NetFirewallRule -DisplayName 'OpenWorker sandbox: closed account has no outbound network' -ErrorAction SilentlyContinue
& $Helper wfp-remove
Remove-ItemProperty -Path $userlist -Name 'OWSandboxOpenNet' -ErrorAction SilentlyContinue
if (Get-LocalUser -Name 'OWSandboxOpenNet' -ErrorAction SilentlyContinue) { Remove-LocalUser -Name 'OWSandboxOpenNet' }
Get-CimInstance Win32_UserProfile | Where-Object { $_.LocalPath -like ('*\' + 'OWSandboxOpenNet') } | Remove-CimInstance
Remove-ItemProperty -Path $userlist -Name 'OWSandboxClosedNet' -ErrorAction SilentlyContinue
Remove-Item -LiteralPath 'C:\ProgramData\OpenWorker\sandbox\sandboxes' -Recurse -Force -ErrorAction SilentlyContinue
Remove-Item -LiteralPath 'C:\ProgramData\OpenWorker\sandbox' -Recurse -Force -ErrorAction SilentlyContinue
foreach ($leaf in @('account.cred', 'setup.json')) {
  Remove-Item -LiteralPath (Join-Path $Root $leaf) -Force -ErrorAction SilentlyContinue
}
Write-Output 'removed'
Stop-Transcript | Out-Null
