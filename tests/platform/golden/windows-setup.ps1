# OpenWorker: set up the Windows sandbox. Rendered by OpenWorker; runs once, elevated.
# It makes two hidden local accounts, one firewall rule, four WFP filters, the credential
# file and the sandboxes folder, and records what it changed in setup.json.
$ErrorActionPreference = 'Stop'
Set-StrictMode -Version 2
$Log = 'C:\Users\ada\AppData\Local\Temp\ow-setup\setup.log'
$Root = 'C:\ProgramData\OpenWorker\sandbox'
$UserSid = 'S-1-5-21-1004336348-1177238915-682003330-1001'
$Helper = 'C:\Program Files\OpenWorker\O''Brien ‘‘tools’’\openworker-winsandbox.exe'
$Rule = 'OpenWorker sandbox: closed account has no outbound network'
$RuleName = 'OpenWorker-Sandbox-ClosedNet-Outbound'
$OpenAccount = 'OWSandboxOpenNet'
$ClosedAccount = 'OWSandboxClosedNet'
$Entropy = 'OpenWorker sandbox accounts v1'
$PortLow = 47800
$PortHigh = 47899
$Version = 1
$changed = New-Object System.Collections.Generic.List[string]
$userlist = 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Winlogon\SpecialAccounts\UserList'
Start-Transcript -Path $Log -Force | Out-Null
try {

# The sandbox folder. Its entries are set once both accounts exist.
if (-not (Test-Path -LiteralPath $Root)) {
  New-Item -ItemType Directory -Path $Root -Force | Out-Null
  $changed.Add("folder:$Root")
}
# (New-Item -Force on an existing registry key would empty it: other hidden accounts live there.)
if (-not (Test-Path -LiteralPath $userlist)) { New-Item -Path $userlist | Out-Null }

# 1. Two accounts with random passwords that exist only here and in the credential file;
#    members of Users (for the interactive logon the runner needs), hidden from sign-in.
function New-OwPassword {
  $bytes = New-Object byte[] 32
  [Security.Cryptography.RandomNumberGenerator]::Create().GetBytes($bytes)
  return [Convert]::ToBase64String($bytes) + 'aA1!'
}
function Set-OwAccount([string]$Name, [string]$Description) {
  $password = New-OwPassword
  $secure = ConvertTo-SecureString $password -AsPlainText -Force
  if (Get-LocalUser -Name $Name -ErrorAction SilentlyContinue) {
    Set-LocalUser -Name $Name -Password $secure -PasswordNeverExpires $true -UserMayChangePassword $false
  } else {
    New-LocalUser -Name $Name -Password $secure -Description $Description -PasswordNeverExpires -UserMayNotChangePassword -AccountNeverExpires | Out-Null
    $changed.Add("account:$Name")
  }
  $users = Get-LocalGroup -SID 'S-1-5-32-545'
  if (-not (Get-LocalGroupMember -Group $users -Member $Name -ErrorAction SilentlyContinue)) {
    Add-LocalGroupMember -Group $users -Member $Name
  }
  New-ItemProperty -Path $userlist -Name $Name -Value 0 -PropertyType DWord -Force | Out-Null
  $changed.Add("userlist:$Name")
  return @{ name = $Name; sid = (Get-LocalUser -Name $Name).SID.Value; password = $password }
}
$open = Set-OwAccount $OpenAccount 'OpenWorker sandbox account (network open)'
$closed = Set-OwAccount $ClosedAccount 'OpenWorker sandbox account (allow list only)'

# 2. No remote desktop, network or service logon for either account.
foreach ($sid in @($open.sid, $closed.sid)) {
  & $Helper deny-logon-rights --sid $sid
  if ($LASTEXITCODE -ne 0) { throw "the logon rights of $sid could not be set" }
}
$changed.Add('logon-rights')

# 3. The closed account: every outbound connection blocked by the firewall, and on loopback
#    (which the firewall does not look at) only the proxy's ports, by WFP filters.
Remove-NetFirewallRule -Name $RuleName -ErrorAction SilentlyContinue
New-NetFirewallRule -Name $RuleName -DisplayName $Rule -Direction Outbound -Action Block -Profile Any -Enabled True -LocalUser "D:(A;;CC;;;$($closed.sid))" -Description 'OpenWorker: the closed sandbox account reaches the network only through the allow-list proxy.' | Out-Null
$changed.Add('firewall')
$wfp = & $Helper wfp-add --sid $closed.sid --port-low $PortLow --port-high $PortHigh | Out-String
if ($LASTEXITCODE -ne 0) { throw "the loopback filters could not be written: $wfp" }
$filters = @(($wfp | ConvertFrom-Json).filters)
$changed.Add('wfp')

# 4. The folders' entries: the sandbox folder readable by the person, passed through by the
#    accounts; sandboxes\ writable by the person, who makes one folder per session in it.
$rootSddl = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1200a9;;;$UserSid)(A;;0x1000a0;;;$($open.sid))(A;;0x1000a0;;;$($closed.sid))"
$acl = Get-Acl -LiteralPath $Root
$acl.SetSecurityDescriptorSddlForm($rootSddl)
Set-Acl -LiteralPath $Root -AclObject $acl
$boxes = Join-Path $Root 'sandboxes'
if (-not (Test-Path -LiteralPath $boxes)) {
  New-Item -ItemType Directory -Path $boxes -Force | Out-Null
  $changed.Add("folder:$boxes")
}
$boxesSddl = "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;$UserSid)(A;;0x1000a0;;;$($open.sid))(A;;0x1000a0;;;$($closed.sid))"
$acl = Get-Acl -LiteralPath $boxes
$acl.SetSecurityDescriptorSddlForm($boxesSddl)
Set-Acl -LiteralPath $boxes -AclObject $acl

# 5. The passwords, sealed with DPAPI (machine scope) in a file only the person, the
#    administrators and the system may read. The file's entries are set before it holds anything.
Add-Type -AssemblyName System.Security
$cred = Join-Path $Root 'account.cred'
Set-Content -LiteralPath $cred -Value $null
$acl = Get-Acl -LiteralPath $cred
$acl.SetSecurityDescriptorSddlForm("D:P(A;;FA;;;SY)(A;;FA;;;BA)(A;;FR;;;$UserSid)")
Set-Acl -LiteralPath $cred -AclObject $acl
$plain = [Text.Encoding]::UTF8.GetBytes("$OpenAccount`t$($open.password)`n$ClosedAccount`t$($closed.password)`n")
$sealed = [Security.Cryptography.ProtectedData]::Protect($plain, [Text.Encoding]::UTF8.GetBytes($Entropy), [Security.Cryptography.DataProtectionScope]::LocalMachine)
[IO.File]::WriteAllBytes($cred, [Text.Encoding]::ASCII.GetBytes("OWCRED1`n") + $sealed)
[Array]::Clear($plain, 0, $plain.Length)
$open.password = $null; $closed.password = $null
$changed.Add('credential')

# 6. The record, so that removal undoes exactly this.
@{ version = $Version; user_sid = $UserSid; firewall_rule = $Rule;
   set_up_at = (Get-Date).ToUniversalTime().ToString('yyyy-MM-ddTHH:mm:ssZ');
   accounts = @{ open = @{ name = $OpenAccount; sid = $open.sid }; closed = @{ name = $ClosedAccount; sid = $closed.sid } };
   wfp = @{ ports = @($PortLow, $PortHigh); filters = $filters };
   changed = @($changed) } | ConvertTo-Json -Depth 5 | Set-Content -LiteralPath (Join-Path $Root 'setup.json') -Encoding UTF8
Write-Output "ok $($open.sid) $($closed.sid)"
} finally {
  Stop-Transcript | Out-Null
}
