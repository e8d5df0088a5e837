/**
 * The built-in shell ban list: what no profile can allow in an unattended run, in
 * groups, each with the reason given in denial messages and the bash tool's
 * description. Command names banned whatever their arguments are listed here;
 * the argument-dependent cases are described here for people and checked in
 * shell_ban_check.ts. The list is defence in depth, not a sandbox: a program the
 * model writes itself (a script file, `python -c`) is not looked into.
 */

export type BanGroup =
  | "network"
  | "privilege"
  | "system_packages"
  | "global_install"
  | "system";

export interface BanEntry {
  group: BanGroup;
  /** Why the group is banned, for the README and denial messages. */
  why: string;
  /** Command names banned whatever their arguments (compared by basename, case-insensitive). */
  commands: readonly string[];
  /** Commands banned only with certain arguments, described for people. */
  when: readonly string[];
}

const words = (list: string): string[] => list.split(" ");

export const BAN_LIST: readonly BanEntry[] = [
  {
    group: "network",
    why: "network clients can download code or send workspace data anywhere; " +
      "use the fetch tool, whose hosts the profile controls",
    commands: words(
      "curl curlie wget wget2 aria2c axel http https httpie http-prompt xh xhs lynx w3m " +
        "links links2 elinks nc ncat netcat socat telnet ssh scp sftp ftp lftp tftp sshpass " +
        "ssh-copy-id mosh autossh nmap chrome chromium chromium-browser google-chrome firefox " +
        "safari xdg-open sensible-browser x-www-browser www-browser",
    ),
    when: [
      "rsync to or from a remote host",
      "openssl s_client / s_server",
      "redirection to /dev/tcp or /dev/udp",
    ],
  },
  {
    group: "privilege",
    why: "raising privileges or changing users lets a run step outside what its user may do",
    commands: words(
      "sudo su doas pkexec run0 chroot nsenter useradd userdel usermod groupadd groupdel " +
        "passwd chpasswd visudo setcap",
    ),
    when: [],
  },
  {
    group: "system_packages",
    why: "system package managers change the machine, not the project, and need the network",
    commands: words(
      "apt apt-get aptitude apt-cache dpkg rpm yum dnf microdnf zypper pacman paru yay " +
        "makepkg apk emerge portage opkg pkg pkg_add pkg_delete port brew snap flatpak " +
        "nix-env nix-channel home-manager xbps-install swupd eopkg slackpkg",
    ),
    when: [],
  },
  {
    group: "global_install",
    why: "global installs change every project on the machine; install into the project instead",
    commands: [],
    when: [
      "npm/pnpm/bun install|add|update|remove|link with -g/--global/--location=global in any " +
      "spelling or through npm_config_global/npm_config_location (and a bare `npm link`)",
      "yarn global …",
      "deno install|uninstall -g/--global (also in a cluster: -gA)",
      "cargo install (also cargo +toolchain install), go install, gem install|i|update, " +
      "pipx install, uv tool install, corepack enable, rustup install|toolchain|component|target",
      "pip install --user/--break-system-packages/--prefix/--root/--target/--system or the " +
      "PIP_* variables that set them (also python -m pip, -mpip, uv pip)",
      "any of the above subcommands with an argument known only at run time",
    ],
  },
  {
    group: "system",
    why: "these stop, reconfigure or wipe the machine rather than build or test code",
    commands: words(
      "shutdown reboot halt poweroff telinit systemctl service chkconfig update-rc.d " +
        "crontab at batch killall5 mkfs mke2fs mkswap fdisk sfdisk gdisk parted wipefs mount umount " +
        "swapon swapoff insmod rmmod modprobe ip ifconfig route iptables ip6tables nft ufw " +
        "firewall-cmd pfctl",
    ),
    when: [
      "mkfs.*",
      "dd of=/dev/…",
      "rm -r (any spelling) or find -delete on /, a top-level folder, ~, $HOME, a folder " +
      "above the working one, or a path known only at run time that is / when empty",
      "kill … -1 (every process)",
    ],
  },
];

const BANNED_NAMES = new Map<string, BanEntry>(
  BAN_LIST.flatMap((e) => e.commands.map((c) => [c, e] as const)),
);

/** The entry of a group. */
export function banGroup(group: BanGroup): BanEntry {
  return BAN_LIST.find((e) => e.group === group)!;
}

/** The entry that bans a command name (already passed through `commandName`) outright. */
export function bannedName(name: string): BanEntry | undefined {
  return BANNED_NAMES.get(name) ?? (/^mkfs\./.test(name) ? banGroup("system") : undefined);
}
