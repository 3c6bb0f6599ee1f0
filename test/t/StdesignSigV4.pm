# A request to stdesign's HTTP endpoint signed with SigV4 as the AWS SDKs
# sign it (every header sent is signed), for the TAP tests that drive the
# endpoint with an access key (009_worker_role.pl, 010_major_upgrade.pl).
#
#   my ($status, $body) = signed_request($port, $key, $secret, $op, $body);
package StdesignSigV4;

use strict;
use warnings;
use Digest::SHA qw(sha256_hex hmac_sha256 hmac_sha256_hex);
use Exporter 'import';
use HTTP::Tiny;
use POSIX qw(strftime);

our @EXPORT = qw(signed_request);

sub signed_request
{
	my ($port, $key, $secret, $op, $body) = @_;
	my $date = strftime('%Y%m%dT%H%M%SZ', gmtime);
	my %h = (
		'content-type' => 'application/x-amz-json-1.0',
		'host' => "127.0.0.1:$port",
		'x-amz-date' => $date,
		'x-amz-target' => "DynamoDB_20120810.$op");
	my @names = sort keys %h;
	my $signed = join(';', @names);
	my $creq = "POST\n/\n\n" . join('', map { "$_:$h{$_}\n" } @names) . "\n$signed\n" . sha256_hex($body);
	my $scope = substr($date, 0, 8) . '/us-east-1/dynamodb/aws4_request';
	my $k = "AWS4$secret";
	$k = hmac_sha256($_, $k) for (substr($date, 0, 8), 'us-east-1', 'dynamodb', 'aws4_request');
	my $sig = hmac_sha256_hex("AWS4-HMAC-SHA256\n$date\n$scope\n" . sha256_hex($creq), $k);
	delete $h{host};
	$h{authorization} = "AWS4-HMAC-SHA256 Credential=$key/$scope, SignedHeaders=$signed, Signature=$sig";
	my $r = HTTP::Tiny->new(timeout => 60)->request('POST', "http://127.0.0.1:$port/",
		{ headers => \%h, content => $body });
	return ($r->{status}, $r->{content});
}

1;
